// Rate-limit and spend counters in linear memory (issue 3, step 7): an open-addressing table of
// CAP slots keyed by the SHA-256 of the counter key. A slot holds the period's end (`until`, ms;
// 0 = never) and what is used; a slot whose period ended counts as empty and is reused.
// All-or-nothing reservation is two calls the host makes back to back with nothing in between
// (JS is single-threaded): counterFits, then counterAdd.
//
// Item layout the host writes (ITEM bytes each): key digest[32] ‖ until f64 ‖ amount f64 ‖ limit f64.

const CAP: i32 = 8192;
const SLOT: i32 = 56; // key[32] ‖ until f64 ‖ used f64 ‖ state u32 ‖ pad
export const ITEM: i32 = 56;
const TABLE: usize = memory.data(CAP * SLOT, 16);

function slotAt(i: i32): usize { return TABLE + <usize>(i * SLOT); }

function sameKey(a: usize, b: usize): bool {
  for (let k: usize = 0; k < 32; k += 8) if (load<u64>(a + k) != load<u64>(b + k)) return false;
  return true;
}

function live(s: usize, now: f64): bool {
  if (load<u32>(s, 48) == 0) return false;
  const until = load<f64>(s, 32);
  return until == 0 || now < until;
}

/** The slot holding `key` (live or not), or -1. */
function find(key: usize): i32 {
  let i = <i32>(load<u32>(key) & <u32>(CAP - 1));
  for (let n = 0; n < CAP; n++) {
    const s = slotAt(i);
    if (load<u32>(s, 48) == 0) return -1;
    if (sameKey(s, key)) return i;
    i = (i + 1) & (CAP - 1);
  }
  return -1;
}

/** Used in the key's current period. */
function usedOf(key: usize, until: f64, now: f64): f64 {
  const i = find(key);
  if (i < 0) return 0;
  const s = slotAt(i);
  if (!live(s, now) || load<f64>(s, 32) != until) return 0;
  return load<f64>(s, 40);
}

/** -1 when every item fits under its limit; else the index of the first that does not. */
export function counterFits(items: usize, n: i32, now: f64): i32 {
  for (let k = 0; k < n; k++) {
    const it = items + <usize>(k * ITEM);
    const used = usedOf(it, load<f64>(it, 32), now);
    if (used + load<f64>(it, 40) > load<f64>(it, 48)) return k;
  }
  return -1;
}

/** What item `k` has used in its period (for the answer's detail). */
export function counterUsed(items: usize, k: i32, now: f64): f64 {
  const it = items + <usize>(k * ITEM);
  return usedOf(it, load<f64>(it, 32), now);
}

/**
 * Add `sign * amount` of every item (sign -1 releases). 0 = ok, -1 = the table is full (the host
 * refuses: usage unknown). Never goes below zero.
 */
export function counterAdd(items: usize, n: i32, now: f64, sign: f64): i32 {
  for (let k = 0; k < n; k++) {
    const it = items + <usize>(k * ITEM);
    const until = load<f64>(it, 32);
    let i = find(it);
    if (i < 0) {
      // A new key: the first empty or ended slot on its probe path.
      i = <i32>(load<u32>(it) & <u32>(CAP - 1));
      let placed = false;
      for (let m = 0; m < CAP; m++) {
        const s = slotAt(i);
        if (load<u32>(s, 48) == 0 || !live(s, now)) { placed = true; break; }
        i = (i + 1) & (CAP - 1);
      }
      if (!placed) return -1;
      const s = slotAt(i);
      memory.copy(s, it, 32);
      store<f64>(s, until, 32);
      store<f64>(s, 0, 40);
      store<u32>(s, 1, 48);
    }
    const s = slotAt(i);
    let used = live(s, now) && load<f64>(s, 32) == until ? load<f64>(s, 40) : 0;
    used += sign * load<f64>(it, 40);
    store<f64>(s, until, 32);
    store<f64>(s, used < 0 ? 0 : used, 40);
  }
  return 0;
}

/** The table, for the host to persist and restore (CAP * SLOT bytes at counterTable()). */
export function counterTable(): usize { return TABLE; }
export function counterTableBytes(): i32 { return CAP * SLOT; }
