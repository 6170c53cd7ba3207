/**
 * Compiled catalogues and rulebooks, per isolate, by tenant and digest: compile once, check many.
 * A PUT of a text compiled before (the SDK registers its catalogue at every new session) is
 * answered from here: the text's SHA-256 names the digest it compiled to, so it is not compiled
 * again. Keys carry the tenant: one tenant never finds another's by digest (STORAGE.md).
 */
export class Compiled<T extends { readonly digest: string }> {
  private readonly byDigest = new Map<string, T>();
  private readonly digestOfText = new Map<string, string>();

  /** `hash`: hex SHA-256 of a text (the WASM core's) */
  constructor(private readonly hash: (text: string) => string) {}

  get(tenant: string, digest: string): T | undefined {
    return this.byDigest.get(key(tenant, digest));
  }

  /**
   * What `text` compiles to: the cached result when this tenant sent the same text before, read
   * as the same `format` (one text can be a rulebook's YAML or its CSV).
   */
  fromText(tenant: string, text: string, compile: (text: string) => T, format = ""): T {
    const textKey = key(tenant, `${format}:${this.hash(text)}`);
    const known = this.digestOfText.get(textKey);
    const hit = known === undefined ? undefined : this.get(tenant, known);
    if (hit) return hit;
    const value = compile(text);
    this.byDigest.set(key(tenant, value.digest), value);
    this.digestOfText.set(textKey, value.digest);
    return value;
  }
}

const key = (tenant: string, id: string) => `${tenant}\u0000${id}`;
