/**
 * Pinned tool definitions (issue 11, item 5): the catalogue may carry, per tool, a `pin` — the
 * digest of the MCP tool as the server gave it when the catalogue was written (`stalwart gateway
 * init` writes it). Two forms (outside audit 13, F3):
 *
 *   - `v2:sha256:<hex>` (what init writes): the whole tool object as listed — title, annotations,
 *     outputSchema, `_meta`, icons and any field MCP adds later. The gateway forwards the object
 *     as sent, so every field of it can carry words to the model or the person, and a field left
 *     out of the pin is a field a server can rewrite unseen.
 *   - `sha256:<hex>` (catalogues pinned before): `{description, inputSchema}` only, as it always
 *     meant, so an older catalogue does not suddenly refuse every tool; the gateway says at its
 *     start that such pins do not cover the rest (start-notes.ts).
 *
 * A tool server that
 * later describes a pinned tool otherwise — the "rug pull" of a server that rewrites a description
 * to steer the model — gets that tool dropped from `tools/list` and every call of it refused with
 * `tool_definition_changed`, before the check runs, so the upstream never sees it.
 *
 * This is the gateway's own refusal, not a check reason: the check never sees tool definitions
 * (only the gateway does), so the code is not in REASON_CODES and no history entry is written for
 * it; the refusal is logged, and the result carries the code in `_meta` like any refusal.
 *
 * What the gateway knows of a definition is what the upstream last listed: every page it forwards
 * to a client, and a full listing of its own when a pinned tool is called and nothing is known
 * since the last `notifications/tools/list_changed`.
 */
import { canonicalize, sha256Hex } from "../../worker/portable/engine/index.js";

/** The gateway's refusal code for a rewritten tool definition (docs/gateway.md; beyond the seed). */
export const TOOL_DEFINITION_CHANGED = "tool_definition_changed";

export interface ToolDefinition {
  name?: unknown;
  description?: unknown;
  inputSchema?: unknown;
}

/** What a pin covers: the whole tool (`v2:sha256:`), or, in the older form (`sha256:`), its description and input schema. */
export type PinForm = "whole" | "description";

/** The prefix of a pin in the whole-tool form. */
export const WHOLE_PIN = "v2:sha256:";

export function pinForm(pin: string): PinForm {
  return pin.startsWith(WHOLE_PIN) ? "whole" : "description";
}

/**
 * The pin of a definition in the given form (by default the one init writes): `v2:sha256:<hex>`
 * of the JCS form of the whole tool object, or `sha256:<hex>` of `{description, inputSchema}`
 * (absent ones as null); undefined if it cannot be read.
 */
export function definitionDigest(t: ToolDefinition, form: PinForm = "whole"): string | undefined {
  try {
    if (form === "whole") return `${WHOLE_PIN}${sha256Hex(canonicalize(t))}`;
    const description = typeof t.description === "string" ? t.description : null;
    const inputSchema = t.inputSchema === undefined ? null : t.inputSchema;
    return `sha256:${sha256Hex(canonicalize({ description, inputSchema }))}`;
  } catch {
    return undefined;
  }
}

/** Whether a tool as listed now matches a pin, read in the pin's own form. */
export function matchesPin(t: ToolDefinition, pin: string): boolean {
  return definitionDigest(t, pinForm(pin)) === pin;
}

/** The pins of a catalogue as parsed from its source (own properties only). */
export function pinsOf(source: unknown): Map<string, string> {
  const pins = new Map<string, string>();
  const tools = typeof source === "object" && source !== null && Object.hasOwn(source, "tools") ? (source as { tools: unknown }).tools : undefined;
  if (!Array.isArray(tools)) return pins;
  for (const t of tools) {
    if (typeof t !== "object" || t === null) continue;
    const name = Object.hasOwn(t, "name") ? (t as { name: unknown }).name : undefined;
    const pin = Object.hasOwn(t, "pin") ? (t as { pin: unknown }).pin : undefined;
    if (typeof name === "string" && typeof pin === "string") pins.set(name, pin);
  }
  return pins;
}

export interface Changed {
  tool: string;
  pinned: string;
  /** what the upstream's definition digests to now; `missing` when it no longer lists the tool */
  found: string;
}

export class Pins {
  /** digests of each tool's definition as last listed, in both forms; undefined digest: unreadable */
  private readonly seen = new Map<string, Digests>();
  private fresh = false;

  constructor(
    private readonly pins: ReadonlyMap<string, string>,
    /** every tool the upstream lists now, all pages */
    private readonly listAll: () => Promise<ToolDefinition[]>,
  ) {}

  get size(): number {
    return this.pins.size;
  }

  /** Whether the catalogue pins this tool (an unpinned tool is never compared). */
  has(tool: string): boolean {
    return this.pins.has(tool);
  }

  /** The upstream said its tools changed: what was seen is no longer known to be current. */
  invalidate(): void {
    this.fresh = false;
  }

  /**
   * Record a page the upstream listed, and keep only the tools that match their pins: each copy
   * judged by its own definition, and none of a pinned name the page lists twice, differently.
   */
  filterPage<T extends ToolDefinition>(tools: readonly T[]): T[] {
    for (const [name, digest] of digestsOf(tools)) this.seen.set(name, digest);
    return tools.filter((t) => {
      if (typeof t.name !== "string") return false;
      if (this.changedNow(t.name) !== undefined) return false;
      const pin = this.pins.get(t.name);
      return pin === undefined || matchesPin(t, pin);
    });
  }

  /** Before a call: undefined when the tool is unpinned or matches its pin; else what changed. */
  async verify(tool: string): Promise<Changed | undefined> {
    if (!this.pins.has(tool)) return undefined;
    if (!this.fresh || !this.seen.has(tool)) await this.refresh();
    return this.changedNow(tool);
  }

  private changedNow(tool: string): Changed | undefined {
    const pinned = this.pins.get(tool);
    if (pinned === undefined) return undefined;
    const digests = this.seen.get(tool);
    const found = digests === undefined ? "missing" : (digests[pinForm(pinned)] ?? "unreadable");
    return found === pinned ? undefined : { tool, pinned, found };
  }

  private async refresh(): Promise<void> {
    // A listing that fails leaves the tool unknown: `missing`, a refusal (fail closed).
    let tools: ToolDefinition[] = [];
    try {
      tools = await this.listAll();
    } catch {
      this.seen.clear();
      return;
    }
    this.seen.clear();
    for (const [name, digest] of digestsOf(tools)) this.seen.set(name, digest);
    this.fresh = true;
  }
}

type Digests = Record<PinForm, string | undefined>;

/**
 * What a listing names a definition for, in each form: a name it lists twice with different
 * definitions is `conflicting`, never its last copy's. Per form, so two copies that differ only
 * in a title conflict for a whole pin and not for an older one, which never covered titles.
 */
function digestsOf(tools: readonly ToolDefinition[]): Map<string, Digests> {
  const digests = new Map<string, Digests>();
  for (const t of tools) {
    if (typeof t.name !== "string") continue;
    const before = digests.get(t.name);
    const now: Digests = { whole: definitionDigest(t, "whole"), description: definitionDigest(t, "description") };
    if (before) for (const form of ["whole", "description"] as const) if (before[form] !== now[form]) now[form] = CONFLICTING;
    digests.set(t.name, now);
  }
  return digests;
}

/** `found` for a pinned name the upstream lists more than once, differently: which copy it would run is unknown. */
const CONFLICTING = "conflicting";
