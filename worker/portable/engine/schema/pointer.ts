/** JSON pointers (RFC 6901): the one way this project names a place inside a JSON value. */

export function escapeSegment(segment: string | number): string {
  return String(segment).replace(/~/g, "~0").replace(/\//g, "~1");
}

function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

export function joinPointer(base: string, ...segments: (string | number)[]): string {
  let out = base;
  for (const s of segments) out += "/" + escapeSegment(s);
  return out;
}

export function splitPointer(pointer: string): string[] {
  if (pointer === "" || pointer === "#") return [];
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  return body.split("/").slice(1).map(unescapeSegment);
}

/**
 * Orders pointers the way a reader scans a document: a parent before its children, then segment
 * by segment (array indices numerically, names by code unit). Used to pick one failure
 * deterministically among several.
 */
export function comparePointers(a: string, b: string): number {
  const sa = splitPointer(a);
  const sb = splitPointer(b);
  const n = Math.min(sa.length, sb.length);
  for (let i = 0; i < n; i++) {
    const x = sa[i]!;
    const y = sb[i]!;
    if (x === y) continue;
    const xi = /^(0|[1-9][0-9]*)$/.test(x);
    const yi = /^(0|[1-9][0-9]*)$/.test(y);
    if (xi && yi) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return sa.length - sb.length;
}

/** Reads the value a pointer names, or undefined. Own properties only. */
export function getAt(root: unknown, pointer: string): unknown {
  let cur: unknown = root;
  for (const seg of splitPointer(pointer)) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else if (cur !== null && typeof cur === "object") {
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      return undefined;
    }
  }
  return cur;
}
