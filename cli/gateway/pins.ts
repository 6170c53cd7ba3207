/**
 * Pinned tool definitions (issue 11, item 5): the catalogue may carry, per tool, `pin:
 * sha256:<hex>` — the digest of the MCP tool's `description` and `inputSchema` as the server gave
 * them when the catalogue was written (`stalwart gateway init` writes it). A tool server that
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

/** `sha256:<hex>` of the JCS form of `{description, inputSchema}` (absent ones as null); undefined if it cannot be read. */
export function definitionDigest(t: ToolDefinition): string | undefined {
  try {
    const description = typeof t.description === "string" ? t.description : null;
    const inputSchema = t.inputSchema === undefined ? null : t.inputSchema;
    return `sha256:${sha256Hex(canonicalize({ description, inputSchema }))}`;
  } catch {
    return undefined;
  }
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
  /** digest of each tool's definition as last listed; undefined digest: unreadable */
  private readonly seen = new Map<string, string | undefined>();
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
      return !this.pins.has(t.name) || definitionDigest(t) === this.pins.get(t.name);
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
    const found = this.seen.has(tool) ? (this.seen.get(tool) ?? "unreadable") : "missing";
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

/** What a listing names a definition for: a name it lists twice with different definitions is `conflicting`, never its last copy's. */
function digestsOf(tools: readonly ToolDefinition[]): Map<string, string | undefined> {
  const digests = new Map<string, string | undefined>();
  for (const t of tools) {
    if (typeof t.name !== "string") continue;
    const d = definitionDigest(t);
    digests.set(t.name, digests.has(t.name) && digests.get(t.name) !== d ? CONFLICTING : d);
  }
  return digests;
}

/** `found` for a pinned name the upstream lists more than once, differently: which copy it would run is unknown. */
const CONFLICTING = "conflicting";
