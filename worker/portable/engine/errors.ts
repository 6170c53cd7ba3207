/**
 * One base class for every error the project throws on purpose, with a stable string `code`
 * callers can switch on (the panva/jose habit). Messages are lowercase; user input in backticks.
 */
export class StalwartError extends Error {
  readonly code: string;
  readonly hint?: string;
  constructor(code: string, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    if (options?.hint) this.hint = options.hint;
  }
}

/** Where in a source file something is wrong (1-based line and column). */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** One problem in a catalogue or rulebook, compiler-style. */
export interface CatalogueProblem extends SourcePosition {
  message: string;
  hint?: string;
  /** JSON pointer into the parsed document, e.g. `/tools/2/writes`. */
  pointer: string;
}

/** A catalogue (or rulebook) that does not load: every problem found, not just the first. */
export class CatalogueError extends StalwartError {
  readonly problems: readonly CatalogueProblem[];
  /** warnings found beside the problems (lint-meaning.ts), for a linter to show too */
  warnings: readonly CatalogueProblem[] = [];
  readonly file: string;
  readonly line: number;
  readonly column: number;
  constructor(problems: readonly CatalogueProblem[]) {
    const first = problems[0] ?? { file: "<catalogue>", line: 1, column: 1, message: "invalid catalogue", pointer: "" };
    super("CatalogueError", problems.map(formatProblem).join("\n"), first.hint ? { hint: first.hint } : undefined);
    this.problems = problems;
    this.file = first.file;
    this.line = first.line;
    this.column = first.column;
  }
}

export function formatProblem(p: CatalogueProblem): string {
  return `${p.file}:${p.line}:${p.column}: error: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ""}`;
}

/** A warning: the catalogue loads, but something in it likely does not do what its author means. */
export function formatWarning(p: CatalogueProblem): string {
  return `${p.file}:${p.line}:${p.column}: warning: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ""}`;
}

/** No licence (or no activated installation) where one is needed. */
export class LicenceRequired extends StalwartError {
  constructor(message = "no activated licence on this machine", hint = "run `stalwart licence activate` with QLS_API_KEY set") {
    super("LicenceRequired", message, { hint });
  }
}

/** The check worker did not answer within the client's deadline. */
export class CheckTimeout extends StalwartError {
  constructor(ms: number) {
    super("CheckTimeout", `the check did not answer within ${ms} ms`);
  }
}

/** Bad input handed to the SDK (not JSON-serialisable args, a history of the wrong shape, …). */
export class InputError extends StalwartError {
  readonly pointer?: string;
  constructor(message: string, pointer?: string, hint?: string) {
    super("InputError", message, hint ? { hint } : undefined);
    if (pointer !== undefined) this.pointer = pointer;
  }
}

/** Problems in source order, each reported once (the same message at the same place collapses). */
export function sortProblems(problems: CatalogueProblem[]): CatalogueProblem[] {
  const seen = new Set<string>();
  return problems
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => {
      const key = `${p.line}:${p.column}:${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.p.line - b.p.line || a.p.column - b.p.column || a.i - b.i)
    .map(({ p }) => p);
}
