/**
 * Strings built from URL pieces with tabs, newlines, controls, spaces, `@`, `%`-escapes and
 * backslashes inserted at random places, for the property test of the destination scanner
 * (test/destinations-url-parser.test.ts). Seeded: a failure reproduces from its seed.
 */
export class UrlPieces {
  constructor(private readonly rnd: () => number) {}
  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  private maybe(p: number, s: () => string): string {
    return this.rnd() < p ? s() : "";
  }
  private host(): string {
    const labels = ["a", "b", "x1", "example", "com", "intranet", "evil", "net", "127", "0", "1", "0x7f", "localhost", "bücher", "xn--bcher-kva", "ｅｘａｍｐｌｅ", "%41", "a%2e"];
    const dot = (): string => this.pick([".", ".", ".", "。", "%2E", "．"]);
    let base = this.pick(["a.example.com", "example.com", "b.a.example.com", "127.0.0.1", "evil.net", "intranet", "[::1]", "localhost", "0x7f.1"]);
    if (this.rnd() < 0.5) base = this.pick(labels) + dot() + base;
    if (this.rnd() < 0.5) base = base + dot() + this.pick(labels);
    if (this.rnd() < 0.1) base = base + ".";
    return base;
  }
  /** One string: a URL-ish value with noise. */
  next(): string {
    const scheme = this.pick(["http", "https", "HTTPS", "ws", "wss", "ftp", "hTtP", "git+ssh", "file"]);
    const sep = this.pick(["://", "://", "://", "://", ":", ":/", ":\\\\", ":///", ":/\\", ":\\/"]);
    const user = this.maybe(0.25, () => this.pick(["user@", "a.example.com@", "u:p@", "x%40y@", "a b@", "@", "a.example.com\\@", "evil.net:@"]));
    const port = this.maybe(0.2, () => this.pick([":8080", ":", ":80", ":0"]));
    const path = this.maybe(0.6, () => this.pick(["/", "/x", "?q=1", "#f", "\\x", "/a@b", "?next=https://evil.net/", "?u=http://a.example.com/", "%2F", "/x y", "/?a=b@c"]));
    let s = `${scheme}${sep}${user}${this.host()}${port}${path}`;
    if (this.rnd() < 0.1) s = this.pick(["//", "/\\", "\\\\"]) + this.host() + path;
    const noise = ["\t", "\n", "\r", "\r\n", " ", "\u0000", "\u0001", "\u001f", "\u007f", "@", "%", "%40", "%2e", "\\", "/", ".", ":", "\u00ad", "\u200b"];
    for (let k = this.int(4); k > 0; k--) {
      const at = this.int(s.length + 1);
      s = s.slice(0, at) + this.pick(noise) + s.slice(at);
    }
    if (this.rnd() < 0.2) s = this.pick([" ", "\u0000", "\t", "\n ", "\u001f"]) + s;
    if (this.rnd() < 0.2) s = s + this.pick([" ", "\u0000", "\t", "\r\n", "\u001f"]);
    return s;
  }
}
