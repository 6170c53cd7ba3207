/**
 * The repository's Markdown as the doc tests read it: which files, their links, their headings'
 * anchors (as GitHub makes them) and their code blocks, with the line each block starts on.
 * Parsing is marked's lexer, so a link inside a code block is not a link and a table cell's is.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import { lexer, type Token, type Tokens } from "marked";

export const REPO = resolve(import.meta.dirname, "../..");

/** Folders that hold no documentation of ours. */
const SKIP = new Set(["node_modules", "dist", "build", ".git", ".wrangler", ".scratch"]);

/** Every Markdown file of the repository, relative to its root, sorted. */
export function markdownFiles(dir = REPO): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith(".stalwart-test")) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownFiles(path));
    else if (e.name.endsWith(".md")) out.push(relative(REPO, path));
  }
  return out.sort();
}

/** The documents users read: the README and docs/ (what the package ships). */
export function userDocs(): string[] {
  return markdownFiles().filter((f) => f === "README.md" || /^docs\/[^/]+\.md$/.test(f));
}

export interface Parsed {
  file: string;
  text: string;
  tokens: Token[];
}

export function parse(file: string): Parsed {
  const text = readFileSync(join(REPO, file), "utf8");
  return { file, text, tokens: lexer(text) };
}

/** Every token, depth first: paragraphs, list items, table cells, link texts. */
function* walk(node: unknown): Generator<Token> {
  if (Array.isArray(node)) {
    for (const n of node) yield* walk(n);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const t = node as Record<string, unknown>;
  if (typeof t.type === "string") yield t as unknown as Token;
  for (const key of ["tokens", "items", "header", "rows"]) if (key in t) yield* walk(t[key]);
}

export interface Link {
  href: string;
  /** 1-based line of the link in its file */
  line: number;
}

function lineAt(text: string, index: number): number {
  return index < 0 ? 0 : text.slice(0, index).split("\n").length;
}

/** Links and images, with reference-style links resolved by the lexer. */
export function linksOf(doc: Parsed): Link[] {
  const out: Link[] = [];
  let cursor = 0;
  for (const t of walk(doc.tokens)) {
    if (t.type !== "link" && t.type !== "image") continue;
    const raw = (t as Tokens.Link).raw;
    const at = doc.text.indexOf(raw, cursor);
    if (at >= 0) cursor = at + raw.length;
    out.push({ href: (t as Tokens.Link).href, line: lineAt(doc.text, at) });
  }
  return out;
}

function plain(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((t) => ("tokens" in t && t.tokens ? plain(t.tokens) : "text" in t ? String(t.text) : "")).join("");
}

/** The anchors GitHub gives the file's headings, in order (a repeated heading gets `-1`, `-2`, …). */
export function anchorsOf(doc: Parsed): Set<string> {
  const slugger = new GithubSlugger();
  const out = new Set<string>();
  for (const t of walk(doc.tokens)) if (t.type === "heading") out.add(slugger.slug(plain((t as Tokens.Heading).tokens)));
  return out;
}

export interface CodeBlock {
  lang: string;
  code: string;
  /** 1-based line of the block's first line of code */
  line: number;
}

export function codeBlocksOf(doc: Parsed): CodeBlock[] {
  const out: CodeBlock[] = [];
  let cursor = 0;
  for (const t of walk(doc.tokens)) {
    if (t.type !== "code") continue;
    const c = t as Tokens.Code;
    const at = doc.text.indexOf(c.raw, cursor);
    if (at >= 0) cursor = at + c.raw.length;
    out.push({ lang: (c.lang ?? "").trim().split(/\s+/)[0] ?? "", code: c.text, line: lineAt(doc.text, at) + 1 });
  }
  return out;
}
