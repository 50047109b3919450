// What the compiled expressions call (expr/emit_js.py writes the calls):
// Python's meaning where JavaScript's differs — an empty list is false, //
// rounds down, min/max of nothing is 0, lists compare by content.

import { compareGroups, Group } from "./hand.mjs";

/** Python's truth of an expression value (an empty list is false). */
export function _truthy(x) { return Array.isArray(x) ? x.length > 0 : Boolean(x); }

/** a // b, and 0 for a division by zero (the expression language is total). */
export function _div(a, b) { return b ? Math.floor(a / b) : 0; }

/** <, <=, >, >= where either side may be none (then false). */
export function _cmp(a, op, b) {
  if (a === null || b === null) return false;
  if (op === "<") return a < b;
  if (op === "<=") return a <= b;
  if (op === ">") return a > b;
  return a >= b;
}

/** Python's ==: lists and slots by content (groups are interned: one object per group), true == 1. */
export function _eq(a, b) {
  if (a === b) return true;
  if (a instanceof Group && b instanceof Group) return compareGroups(a, b) === 0; // by content, as Python's tuples
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => _eq(x, b[i]));
  if ((typeof a === "boolean" || typeof a === "number") && (typeof b === "boolean" || typeof b === "number")) {
    return Number(a) === Number(b);
  }
  return false;
}

export function _in(x, xs) { return xs.some((y) => _eq(x, y)); }

function order(a, b) {
  if (a instanceof Group && b instanceof Group) return compareGroups(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = order(a[i], b[i]);
      if (c) return c;
    }
    return a.length - b.length;
  }
  if (typeof a === "string" && typeof b === "string") return textOrder(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Texts in the order Python sorts them: by code point (JavaScript's < compares UTF-16 units, which
 * puts a character past U+FFFF before U+E000-U+FFFF). */
function textOrder(a, b) {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(j);
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return Math.sign((a.length - i) - (b.length - j)); // the one with characters left is the greater
}
/** len(): a text's length in code points, as Python counts it. */
export function _len(x) { return typeof x === "string" ? [...x].length : x.length; }
export function _sorted(xs) { return xs.slice().sort(order); }
export function _sum(xs) { return xs.reduce((a, b) => a + b, 0); }
export function _product(xs) { return xs.reduce((a, b) => a * b, 1); }
export function _min(xs) { return xs.length ? xs.reduce((a, b) => (b < a ? b : a)) : 0; }
export function _max(xs) { return xs.length ? xs.reduce((a, b) => (b > a ? b : a)) : 0; }
export function _count(xs, f) { let n = 0; xs.forEach((x, i) => { if (f(x, i)) n += 1; }); return n; }
export function _sumOf(xs, f) { return _sum(xs.map(f)); }
export function _productOf(xs, f) { return _product(xs.map(f)); }
export function _minOf(xs, f) { return _min(xs.map(f)); }
export function _maxOf(xs, f) { return _max(xs.map(f)); }

/** Bit k of a group mask (a Number below 2**31, or a BigInt). */
export function _bit(k, x) { return typeof x === "bigint" ? ((x >> BigInt(k)) & 1n) === 1n : ((x >>> k) & 1) === 1; }

/** A value as part of a cache key (lists by content, groups by name). */
export function _key(x) {
  if (Array.isArray(x)) return "[" + x.map(_key).join(",") + "]";
  if (x instanceof Group) return x.key;
  return String(x);
}
