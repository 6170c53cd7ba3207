// madge 8 ships no types; the part of its API test/structure.test.ts uses.
declare module "madge" {
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string | object;
    baseDir?: string;
    excludeRegExp?: RegExp[];
    detectiveOptions?: object;
  }
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
