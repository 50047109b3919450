// JSON and values as the Python scorer sees them, so that both modules answer
// every line alike: a JSON reader with Python's json.loads messages and
// positions, keeping what JavaScript would lose (an object's key order, 1.0
// apart from 1, integers past 2**53), json.dumps's text, and repr()/str()/
// type names for the messages that quote a value.

/** A JSON number with a fraction or exponent: Python reads it as a float (1.0 is not 1). */
export class PyFloat {
  constructor(value) { this.value = value; }
}

/** What json.loads raises: msg at a character position (Python counts code points). */
export class JSONDecodeError extends Error {
  constructor(msg, doc, pos) {
    const cp = codePoints(doc, pos);
    const before = doc.slice(0, pos);
    const lineno = before.split("\n").length;
    const colno = cp - codePoints(doc, before.lastIndexOf("\n") + 1) + 1;
    super(`${msg}: line ${lineno} column ${colno} (char ${cp})`);
    this.name = "JSONDecodeError";
    this.pos = cp;
    this.msg = msg;
    this.lineno = lineno;
    this.colno = colno;
  }
}

/** An integer of more digits than Python reads from text (runtime.loads_request says where it starts). */
export class TooManyDigits extends JSONDecodeError {
  constructor(digits, doc, pos) {
    const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    super(`an integer of ${grouped(digits)} digits (at most ${grouped(MAX_INT_DIGITS)})`, doc, pos);
    this.name = "TooManyDigits";
  }
}

/** A JSON text with a key repeated in one object (runtime.loads_request refuses it: json.loads would keep the last). */
export class RepeatedKey extends JSONDecodeError {
  constructor(key, doc, pos) {
    super(`the key ${pyShort(key)} is repeated in its object`, doc, pos);
    this.name = "RepeatedKey";
  }
}

function codePoints(s, end) { // characters (code points) in s[0:end], end a UTF-16 index
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const WS = (c) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const MAX_INT_DIGITS = 4300; // Python's limit on converting a decimal string to int

/** json.loads: objects become Maps (their key order kept), fractions PyFloat, big integers BigInt.
 * A text that is JSON but repeats a key in one object throws RepeatedKey at the first such key. */
export function loads(s) {
  if (s.charCodeAt(0) === 0xfeff) throw new JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", s, 0);
  let i = 0;
  let repeated = null; // [position, key] of the first key repeated in its object
  const n = s.length;
  const skip = () => { while (i < n && WS(s.charCodeAt(i))) i++; };
  const fail = (msg, pos) => { throw new JSONDecodeError(msg, s, pos); };

  function value() {
    if (i >= n) fail("Expecting value", i);
    const c = s[i];
    if (c === '"') { i++; return string(); }
    if (c === "{") { i++; return object(); }
    if (c === "[") { i++; return array(); }
    for (const [word, v] of WORDS) {
      if (c === word[0] && s.startsWith(word, i)) { i += word.length; return v(); }
    }
    return number();
  }

  function number() {
    const start = i;
    let j = i;
    if (s[j] === "-") j++;
    if (s[j] === "0") j++;
    else if (s[j] >= "1" && s[j] <= "9") { while (s[j] >= "0" && s[j] <= "9") j++; }
    else fail("Expecting value", start);
    let isFloat = false;
    if (s[j] === "." && s[j + 1] >= "0" && s[j + 1] <= "9") {
      isFloat = true;
      j += 2;
      while (s[j] >= "0" && s[j] <= "9") j++;
    }
    if (s[j] === "e" || s[j] === "E") {
      let k = j + 1;
      if (s[k] === "+" || s[k] === "-") k++;
      if (s[k] >= "0" && s[k] <= "9") {
        while (s[k] >= "0" && s[k] <= "9") k++;
        isFloat = true;
        j = k;
      }
    }
    const text = s.slice(start, j);
    i = j;
    if (isFloat) return new PyFloat(Number(text));
    const digits = text.length - (text[0] === "-" ? 1 : 0);
    if (digits > MAX_INT_DIGITS) {
      throw new TooManyDigits(digits, s, start);
    }
    const v = Number(text);
    return Number.isSafeInteger(v) ? (Object.is(v, -0) ? 0 : v) : BigInt(text);
  }

  function string() {
    const begin = i - 1;
    let out = "";
    for (;;) {
      let j = i;
      let c = 0;
      for (; j < n; j++) {
        c = s.charCodeAt(j);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) fail("Invalid control character at", j);
      }
      if (j >= n) fail("Unterminated string starting at", begin);
      out += s.slice(i, j);
      j++;
      if (c === 0x22) { i = j; return out; }
      if (j === n) fail("Unterminated string starting at", begin);
      const e = s[j];
      if (e !== "u") {
        const ch = ESCAPES[e];
        if (ch === undefined) fail("Invalid \\escape", j - 1);
        out += ch;
        i = j + 1;
        continue;
      }
      j++;
      let end = j + 4;
      if (end >= n) fail("Invalid \\uXXXX escape", j - 1);
      let u = hex4(j);
      if (u < 0) fail("Invalid \\uXXXX escape", end - 5);
      if (u >= 0xd800 && u <= 0xdbff && end + 6 < n && s[end] === "\\" && s[end + 1] === "u") {
        const u2 = hex4(end + 2);
        if (u2 < 0) fail("Invalid \\uXXXX escape", end + 1);
        if (u2 >= 0xdc00 && u2 <= 0xdfff) {
          out += String.fromCharCode(u, u2);
          i = end + 6;
          continue;
        }
      }
      out += String.fromCharCode(u);
      i = end;
    }
  }

  function hex4(j) {
    let v = 0;
    for (let k = j; k < j + 4; k++) {
      const d = HEX.indexOf(s[k]);
      if (d < 0) return -1;
      v = v * 16 + (d > 15 ? d - 6 : d);
    }
    return v;
  }

  function object() {
    const out = new Map();
    skip();
    if (s[i] === "}") { i++; return out; }
    for (;;) {
      if (i >= n || s[i] !== '"') fail("Expecting property name enclosed in double quotes", i);
      const at = i;
      i++;
      const key = string();
      if (repeated === null && out.has(key)) repeated = [at, key];
      skip();
      if (i >= n || s[i] !== ":") fail("Expecting ':' delimiter", i);
      i++;
      skip();
      out.set(key, value());
      skip();
      if (i < n && s[i] === "}") { i++; return out; }
      if (i >= n || s[i] !== ",") fail("Expecting ',' delimiter", i);
      i++;
      skip();
    }
  }

  function array() {
    const out = [];
    skip();
    if (s[i] === "]") { i++; return out; }
    for (;;) {
      out.push(value());
      skip();
      if (i < n && s[i] === "]") { i++; return out; }
      if (i >= n || s[i] !== ",") fail("Expecting ',' delimiter", i);
      i++;
      skip();
    }
  }

  skip();
  const v = value();
  skip();
  if (i !== n) fail("Extra data", i);
  if (repeated !== null) throw new RepeatedKey(repeated[1], s, repeated[0]);
  return v;
}

const HEX = "0123456789abcdefABCDEF";
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const WORDS = [
  ["null", () => null], ["true", () => true], ["false", () => false], ["NaN", () => new PyFloat(NaN)],
  ["Infinity", () => new PyFloat(Infinity)], ["-Infinity", () => new PyFloat(-Infinity)],
];

// ---- values as Python shows them ---------------------------------------------------------

/** Is x a mapping (a parsed JSON object, or a plain object handed to the API)? */
export function isDict(x) {
  return x instanceof Map || (x !== null && typeof x === "object" && !Array.isArray(x) && !(x instanceof PyFloat));
}
export function dictKeys(d) { return d instanceof Map ? [...d.keys()] : Object.keys(d); }
export function dictHas(d, k) { return d instanceof Map ? d.has(k) : Object.prototype.hasOwnProperty.call(d, k); }
/** d.get(k) in Python: null when absent (an undefined value counts as absent). */
export function dictGet(d, k) {
  const v = d instanceof Map ? d.get(k) : (Object.prototype.hasOwnProperty.call(d, k) ? d[k] : undefined);
  return v === undefined ? null : v;
}
export function dictEntries(d) { return d instanceof Map ? [...d.entries()] : Object.entries(d); }

export function isInt(x) { return (typeof x === "number" && Number.isInteger(x)) || typeof x === "bigint"; }

/** type(x).__name__ */
export function typeName(x) {
  if (x === null || x === undefined) return "NoneType";
  if (typeof x === "boolean") return "bool";
  if (typeof x === "string") return "str";
  if (isInt(x)) return "int";
  if (typeof x === "number" || x instanceof PyFloat) return "float";
  if (Array.isArray(x)) return "list";
  return "dict";
}

/** Python's truth of a value. */
export function pyTruthy(x) {
  if (x === null || x === undefined || x === false || x === 0 || x === 0n || x === "") return false;
  if (x instanceof PyFloat) return x.value !== 0;
  if (Array.isArray(x)) return x.length > 0;
  if (x instanceof Map) return x.size > 0;
  if (typeof x === "object") return Object.keys(x).length > 0;
  return true;
}

/** float.__repr__: the shortest digits, in Python's layout (1e+16, 1e-05, 100.0). */
export function floatRepr(v) {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const sign = v < 0 ? "-" : "";
  const [mant, exp] = Math.abs(v).toExponential().split("e");
  const digits = mant.replace(".", "");
  const decpt = Number(exp) + 1;
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** repr() of a str: Python's choice of quotes and escapes. */
export function pyStrRepr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const c of s) {
    const cp = c.codePointAt(0);
    if (c === quote || c === "\\") out += "\\" + c;
    else if (c === "\t") out += "\\t";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x7f || (c !== " " && !NOT_PRINTABLE.test(c)) || c === " ") out += c;
    else if (cp <= 0xff) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp <= 0xffff) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + quote;
}

/** repr() of a JSON value. */
export function pyRepr(x) {
  if (x === null || x === undefined) return "None";
  if (x === true) return "True";
  if (x === false) return "False";
  if (typeof x === "string") return pyStrRepr(x);
  if (typeof x === "bigint") return String(x);
  if (typeof x === "number") return Number.isInteger(x) ? String(x) : floatRepr(x);
  if (x instanceof PyFloat) return floatRepr(x.value);
  if (Array.isArray(x)) return "[" + x.map(pyRepr).join(", ") + "]";
  return "{" + dictEntries(x).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ") + "}";
}

/** repr() cut to n characters (code points), the last one "…" (request._short). */
export function pyShort(x, n = 60) {
  const r = [...pyRepr(x)];
  return r.length <= n ? r.join("") : r.slice(0, n - 1).join("") + "…";
}

/** The first n characters (code points) of a string, as Python's s[:n]. */
export function pyHead(s, n) {
  const cs = [...s];
  return cs.length <= n ? s : cs.slice(0, n).join("");
}

/** str() of a JSON value. */
export function pyStr(x) { return typeof x === "string" ? x : pyRepr(x); }

/** Python's == between JSON-like values (1 == 1.0 == True; lists and mappings by content). */
export function pyEq(a, b) {
  if (a === b) return true;
  const num = (x) => (x === true ? 1 : x === false ? 0 : x instanceof PyFloat ? x.value : x);
  const na = num(a), nb = num(b);
  const isNum = (x) => typeof x === "number" || typeof x === "bigint";
  if (isNum(na) && isNum(nb)) {
    if (typeof na === typeof nb) return na === nb;
    const [big, x] = typeof na === "bigint" ? [na, nb] : [nb, na];
    return Number.isInteger(x) && BigInt(x) === big;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEq(x, b[i]));
  if (isDict(a) && isDict(b)) {
    const ka = dictKeys(a), kb = dictKeys(b);
    return ka.length === kb.length && ka.every((k) => dictHas(b, k) && pyEq(dictGet(a, k), dictGet(b, k)));
  }
  return false;
}

// what json.dumps escapes, the three line breaks beyond ASCII (U+0085, U+2028, U+2029: an answer is
// one line to every reader, Python's splitlines included) and a lone surrogate (which UTF-8 cannot
// carry), each as its \u escape, the same JSON value: the text the Python scorer writes (_safe_text)
const ESC_RE = /[\x00-\x1f"\\\x85\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ESC = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
function dumpString(s) {
  return '"' + s.replace(ESC_RE, (c) => ESC[c] || "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) + '"';
}

/** json.dumps(x, ensure_ascii=False): Python's separators, floats and escapes. */
export function dumps(x, strict = false) {
  if (x === null || x === undefined) return "null";
  if (x === true) return "true";
  if (x === false) return "false";
  if (typeof x === "string") return dumpString(x);
  if (typeof x === "bigint") return String(x);
  if (typeof x === "number") return Number.isInteger(x) ? String(x) : floatJson(x, strict);
  if (x instanceof PyFloat) return floatJson(x.value, strict);
  if (Array.isArray(x)) return "[" + x.map((v) => dumps(v, strict)).join(", ") + "]";
  return "{" + dictEntries(x).map(([k, v]) => `${dumpString(String(k))}: ${dumps(v, strict)}`).join(", ") + "}";
}

/** What dumps(x, true) throws for NaN and the infinities (json.dumps(allow_nan=False)'s ValueError): strict JSON has no text for them. */
export class NotStrictJson extends Error {}

function floatJson(v, strict) {
  if (Number.isFinite(v)) return floatRepr(v);
  if (strict) throw new NotStrictJson("Out of range float values are not JSON compliant");
  if (Number.isNaN(v)) return "NaN";
  return v > 0 ? "Infinity" : "-Infinity";
}

// Python's str.strip(): the whitespace it removes at both ends
const PY_STRIP = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
export function pyStrip(s) { return s.replace(PY_STRIP, ""); }
