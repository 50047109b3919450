// The node side of benchmarks/bench_js.py: a worker that loads a generated
// scorer.mjs and answers commands on stdin, one JSON object per line:
//   {"cmd": "load", "set": name, "hands": [request, ...]}   keep a set of requests
//   {"cmd": "warm", "set": name}                             score it once, untimed
//   {"cmd": "round", "set": name, "passes": n}               score it n times: {"hands_per_s", "cpu_hands_per_s"}
//   {"cmd": "first_sight", "set": name}                      each hand once, timed: {"ms": [...], "cpu_ms": [...]}
// Rounds are timed by the wall clock and by this process's CPU time, as the
// Python side does; the driver interleaves the two sides' rounds so that a slow
// spell of the machine hits both. At first sight each hand is scored on its own
// turn of the event loop, as a server or a page scores the requests it receives.

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const { score } = await import(pathToFileURL(resolve(process.argv[2])).href);
const sets = new Map();
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const msg = JSON.parse(line);
  const hands = sets.get(msg.set);
  let out = {};
  if (msg.cmd === "load") sets.set(msg.set, msg.hands);
  else if (msg.cmd === "warm") for (const h of hands) score(h);
  else if (msg.cmd === "round") {
    const t = performance.now();
    const c = process.cpuUsage();
    const passes = msg.passes || 1;
    for (let p = 0; p < passes; p++) for (const h of hands) score(h);
    const cpu = process.cpuUsage(c);
    out = { hands_per_s: passes * hands.length / ((performance.now() - t) / 1000),
      cpu_hands_per_s: passes * hands.length / ((cpu.user + cpu.system) / 1e6) };
  } else if (msg.cmd === "first_sight") {
    // first let the compiler threads finish what the untimed sets gave them: their CPU time
    // would otherwise land on the first hands timed (process.cpuUsage counts every thread)
    await new Promise((done) => setTimeout(done, 300));
    out = { ms: [], cpu_ms: [] };
    for (const h of hands) {
      await new Promise((done) => setImmediate(done));
      const t = performance.now();
      const c = process.cpuUsage();
      score(h);
      const cpu = process.cpuUsage(c);
      out.ms.push(performance.now() - t);
      out.cpu_ms.push((cpu.user + cpu.system) / 1000);
    }
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
