import { describe, expect, it } from "vitest";
import { TurnIndex, readNumber, tokenizeTurn, typedIn } from "../worker/portable/engine/origins/typed.js";
import { declaredKeys } from "../worker/portable/engine/origins/declared-keys.js";
import { inferOrigins } from "../worker/portable/engine/origins/infer.js";
import type { Language } from "../worker/portable/engine/catalogue/types.js";
import { prng as mulberry32 } from "./helpers/prng.js";

type Case = readonly [turn: string, value: unknown, found: boolean];

const PT_BR: readonly Case[] = [
  // the spec's example
  ["estorne 40,00 do pedido 4411", 40, true],
  ["estorne 40,00 do pedido 4411", 40.0, true],
  ["estorne 40,00 do pedido 4411", "4411", true],
  ["estorne 40,00 do pedido 4411", 4411, true],
  ["pedido 44110", "4411", false],
  ["pedido 44110", 4411, false],
  ["pedido 4411a", "4411", false],
  ["pedido 4411a", 4411, false],
  // numbers in pt-BR
  ["R$ 40", 40, true],
  ["R$40,00", 40, true],
  ["R$\u00a040,00", 40, true],
  ["R$ 40,50", 40.5, true],
  ["R$ 40,50", 40.05, false],
  ["1.234,56", 1234.56, true],
  ["1234,56", 1234.56, true],
  ["total 1.234.567,89", 1234567.89, true],
  ["R$ 1.000", 1000, true],
  ["40.000", 40000, true],
  ["1.234", 1234, true],
  ["1.234", 1.234, false],
  ["0,5", 0.5, true],
  ["1,5", 1.5, true],
  ["40,001", 40.001, true],
  ["40%", 40, true],
  ["nº 4411", 4411, true],
  // the other language's format, and ambiguous ones, are no numbers
  ["1,234.56", 1234.56, false],
  ["1,234.56", 1.234, false],
  ["40.5", 40.5, false],
  ["40.5", 405, false],
  ["40.5", 40, false],
  ["0.500", 500, false],
  ["0.500", 0.5, false],
  // exact values only
  ["40,01", 40, false],
  ["R$ 39,99", 40, false],
  ["-40", -40, true],
  ["-40", 40, false],
  ["−40", -40, true],
  ["de 10-40", 40, true],
  ["10kg", 10, false],
  ["2x", 2, false],
  ["1e3", 1000, false],
  // strings: case, accents, whole tokens, any white space
  ["estorné", "estorne", true],
  ["estorne", "estorné", true],
  ["São Paulo", "sao paulo", true],
  ["sao paulo", "São Paulo", true],
  ["SÃO PAULO", "São Paulo", true],
  ["conceição", "Conceicao", true],
  ["d’ávila", "D’Avila", true],
  ["d’ávila", "D'Avila", false], // quotes are compared as typed
  ["banana", "ana", false],
  ["Ana comprou", "ana", true],
  ["Rua das   Flores\n12", "Rua das Flores 12", false], // white space is compared as typed
  ["Rua das   Flores\n12", "Rua das   Flores\n12", true],
  ["Rua das Flores, 12", "Rua das Flores 12", false],
  ["Rua das Flores 120", "Rua das Flores 12", false],
  ["pedido 4411.", "4411", true],
  ["pedido 4411,5", "4411", false],
  ["pedido 1.4411", "4411", false],
  ["pedido #4411", "4411", true],
  ["entregar em São Paulo/SP", "São Paulo", true],
  ["Rio de Janeiro-RJ", "rio de janeiro", true],
  // fail closed
  ["", "x", false],
  ["algo", "", false],
  ["algo", "   ", false],
  ["sim", true, false],
  ["null", null, false],
  ["40", undefined, false],
  ["pão e leite", ["pão", "leite"], true],
  ["pão", ["pão", "leite"], false],
  ["pão", [], false],
  ["Rua A 12", { street: "rua a", number: 12 }, false], // keys no schema declares must be typed (below)
  ["rua a 12 number street", { street: "rua a", number: 12 }, true],
  ["40", { amount: 40, ok: true }, false],
];

const EN: readonly Case[] = [
  ["refund 40.00 for order 4411", 40, true],
  ["refund 40.00 for order 4411", 40.0, true],
  ["refund 40.00 for order 4411", "4411", true],
  ["refund 40.00 for order 4411", 4411, true],
  ["order 44110", "4411", false],
  ["order 44110", 4411, false],
  ["$40", 40, true],
  ["$40.50", 40.5, true],
  ["$40.50", 40.05, false],
  ["1,234.56", 1234.56, true],
  ["1234.56", 1234.56, true],
  ["USD 1,000,000", 1000000, true],
  ["1,234", 1234, true],
  ["1,234", 1.234, false],
  ["1.234", 1.234, true],
  ["1.234", 1234, false],
  ["0.5", 0.5, true],
  [".5", 0.5, false],
  ["40 percent", 40, true],
  // the other language's format, and ambiguous ones, are no numbers
  ["1.234,56", 1234.56, false],
  ["1.234,56", 1.234, false],
  ["40,00", 40, false],
  ["40,5", 40.5, false],
  ["40,5", 405, false],
  ["0,500", 500, false],
  ["1,2,3", 2, false],
  ["1, 2, 3", 2, true],
  // exact values only
  ["40.01", 40, false],
  ["39.99", 40, false],
  ["40", 40.000001, false],
  ["-40", -40, true],
  ["-40", 40, false],
  ["pages 10-40", 40, true],
  ["10kg", 10, false],
  ["#4411", 4411, true],
  ["10000000000000000000000", 1e22, false],
  ["Infinity", Infinity, false],
  // strings
  ["Café", "cafe", true],
  ["cafe", "Café", true],
  ["banana", "ana", false],
  ["Hi Ana", "ana", true],
  ["221B  Baker\tStreet", "221b baker street", false], // white space is compared as typed
  ["221B  Baker\tStreet", "221b  baker\tstreet", true],
  ["221B Baker Street", "Baker St", false],
  ["order 4411.", "4411", true],
  ["order 4411.5", "4411", false],
  ["order 1.4411", "4411", false],
  ["it’s mine", "it's mine", false],
  ["it’s mine", "IT’S MINE", true],
  ["send it to ana@example.com", "Ana@Example.com", true],
  ["send it to ana@example.com", "ana@example", false],
  ["send it to ana.silva@example.com", "ana", false],
  ["see file 4411.pdf", 4411, false],
  ["see file 4411.pdf", "4411", false],
  ["Ana.", "ana", true],
  // fail closed
  ["yes", true, false],
  ["null", null, false],
  ["milk and bread", ["milk", "bread"], true],
  ["milk", ["milk", "bread"], false],
  ["milk", [["milk"], { a: "milk" }], false], // milk twice, and `a`
  ["milk, milk a", [["milk"], { a: "milk" }], true],
  ["milk", [null], false],
];

function table(language: Language, cases: readonly Case[]): void {
  describe(`typedIn (${language})`, () => {
    it("has at least 40 cases", () => expect(cases.length).toBeGreaterThanOrEqual(40));
    for (const [turn, value, found] of cases) {
      it(`${JSON.stringify(value)} in ${JSON.stringify(turn)} → ${found}`, () => {
        expect(typedIn(value, [turn], language)).toBe(found);
      });
    }
  });
}
table("pt-BR", PT_BR);
table("en", EN);

describe("TurnIndex", () => {
  it("searches every turn added, each folded once", () => {
    const index = new TurnIndex("pt-BR");
    index.add("quero estornar o pedido 4411");
    index.add("o valor é R$ 40,00, entregue em São Paulo");
    expect(index.size).toBe(2);
    expect(index.has(40)).toBe(true);
    expect(index.has("4411")).toBe(true);
    expect(index.has("sao paulo")).toBe(true);
    expect(index.has(41)).toBe(false);
  });

  it("never matches across two turns", () => {
    const index = new TurnIndex("en");
    index.add("Rua das");
    index.add("Flores");
    expect(index.has("rua das flores")).toBe(false);
  });

  it("takes turns folded by tokenizeTurn, of its own language only", () => {
    const index = new TurnIndex("en");
    index.add(tokenizeTurn("refund $40", "en"));
    expect(index.has(40)).toBe(true);
    expect(() => index.add(tokenizeTurn("R$ 40", "pt-BR"))).toThrow(/pt-BR/);
  });

  it("is told its language and never guesses one", () => {
    expect(new TurnIndex().language).toBe("en");
    expect(() => new TurnIndex("pt" as Language)).toThrow(/unknown language/);
  });

  it("folds a 1 MB turn in linear time", () => {
    const turn = "1.2,3.4,5 a4411b -".repeat(60_000);
    // Linear time is guarded by the test timeout; speed itself lives in bench/.
    const index = new TurnIndex("pt-BR");
    index.add(turn);
    expect(index.has("4411b -1")).toBe(false);
  }, 60_000);
});

describe("tokenizeTurn", () => {
  it("reads the numbers of the turn in its language", () => {
    const t = tokenizeTurn("Estorne R$ 40,00 do pedido 4411, total 1.234,56; -12 e 10-40. x4411a 40.5 1,234.56", "pt-BR");
    expect([...t.numbers].sort()).toEqual(["-12", "10", "1234.56", "40", "4411"]);
    expect(t.text).toBe("estorne r$ 40,00 do pedido 4411, total 1.234,56; -12 e 10-40. x4411a 40.5 1,234.56");
  });

  it("reads number tokens exactly", () => {
    expect(readNumber("007", "en")).toBe("7");
    expect(readNumber("0,00", "pt-BR")).toBe("0");
    expect(readNumber("-0", "en")).toBe("0");
    expect(readNumber("1.000,10", "pt-BR")).toBe("1000.1");
    expect(readNumber("1,000.10", "en")).toBe("1000.1");
    expect(readNumber("12,34", "en")).toBeNull();
    expect(readNumber("1.23.456", "pt-BR")).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Property test, seeded: any amount written the way a person writes it in the session's
// language is found; one cent more or less is not.


function group(digits: string, sep: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
}

/** Writes `cents / 100` as a person might in `language`: grouped or not, cents or not, a currency. */
function format(cents: number, language: Language, rnd: () => number): string {
  const [thousands, decimal, currencies] = language === "pt-BR" ? [".", ",", ["R$ ", "R$", "", ""]] : [",", ".", ["$", "US$ ", "", ""]];
  const whole = String(Math.floor(cents / 100));
  const frac = String(cents % 100).padStart(2, "0");
  const int = rnd() < 0.5 ? group(whole, thousands) : whole;
  const decimals = cents % 100 === 0 && rnd() < 0.5 ? "" : frac.endsWith("0") && rnd() < 0.5 ? decimal + frac[0] : decimal + frac;
  const currency = currencies[Math.floor(rnd() * currencies.length)]!;
  return `${currency}${int}${decimals}`;
}

describe("properties", () => {
  for (const language of ["pt-BR", "en"] as const) {
    it(`a formatted amount is found in ${language}, one cent off is not`, () => {
      const rnd = mulberry32(language === "en" ? 1 : 2);
      const words = language === "pt-BR" ? ["estorne", "o valor de", "por favor:"] : ["refund", "the amount of", "please:"];
      for (let i = 0; i < 2000; i++) {
        const cents = Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 9)));
        const written = format(cents, language, rnd);
        const turn = `${words[i % words.length]} ${written}${rnd() < 0.5 ? "." : ""} obrigado`;
        const index = new TurnIndex(language);
        index.add(turn);
        const value = cents / 100;
        if (!index.has(value)) throw new Error(`${value} not found in ${JSON.stringify(turn)}`);
        for (const off of [(cents + 1) / 100, (cents - 1) / 100, value + 0.01, value - 0.01]) {
          if (index.has(off)) throw new Error(`${off} found in ${JSON.stringify(turn)}`);
        }
      }
    });
  }

  it("an amount grouped the other language's way is not read as that amount", () => {
    const rnd = mulberry32(3);
    for (let i = 0; i < 1000; i++) {
      const cents = 100_000 + Math.floor(rnd() * 1e9); // at least 1000, so there is a group
      if (cents % 100 === 0) continue;
      const value = cents / 100;
      expect(typedIn(value, [format(cents, "en", () => 0.1)], "pt-BR")).toBe(false);
      expect(typedIn(value, [format(cents, "pt-BR", () => 0.1)], "en")).toBe(false);
    }
  });
});

describe("hostile turns", () => {
  const cases: Record<string, string> = {
    "separators between digits": `1${".,".repeat(500_000)}5`,
    "groups that never close": `1${",234".repeat(250_000)}.5.5`,
    "signs and dots": "-.".repeat(500_000),
    "digits glued to letters": "a1".repeat(500_000),
    "one long word": "a".repeat(1 << 20),
  };
  for (const [name, turn] of Object.entries(cases)) {
    // A super-linear fold of 1 MB runs for minutes: the test's timeout is what catches it.
    it(`1 MB of ${name} is folded and searched within the timeout`, () => {
      for (const language of ["en", "pt-BR"] as const) {
        const index = new TurnIndex(language);
        index.add(turn);
        expect(index.size).toBe(1);
        index.has(1);
        index.has("a1a1a1a1a1a1a1a1a1a1a1a2");
        index.has("a".repeat(4000));
      }
    }, 60_000);
  }
});

/**
 * Issue 9, "Values and origins": matching folds case and accents only. Generated values: a typed
 * phrase with one character changed into a control character, other white space, a compatibility
 * character or an untyped combining mark is not found; the same phrase with its case changed, or its
 * accents written precomposed or decomposed, is.
 */
describe("typed: only case and accents fold (generated)", () => {
  const WORDS = ["hello", "world", "subject", "kelvin", "order", "ana", "sao", "paulo", "cafe", "refund"];
  const CONTROL = [..."\u0000\u0001\u0007\b\t\n\u000b\f\r\u001b\u007f\u0085\u2028\u2029"];
  const SPACES = [..."\u00a0\u2000\u2003\u2009\u200b\u3000\ufeff"];
  // compatibility characters a letter would "fold" into under NFKC or toLowerCase
  const COMPAT: Record<string, string[]> = { k: ["\u212a", "\uff4b", "\u24da", "\ud835\udc8c"], a: ["\u212b", "\uff41", "\u00aa"], o: ["\u2126", "\u00ba", "\uff4f"], f: ["\ufb00"], e: ["\u212f", "\uff45"], l: ["\u2113", "\uff4c"] };
  const r = mulberry32(20260901);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const phrase = () => Array.from({ length: 2 + Math.floor(r() * 3) }, () => pick(WORDS)).join(" ");

  it("a control character or other white space where the person typed a space is not typed", () => {
    for (let i = 0; i < 500; i++) {
      const typed = phrase();
      const index = new TurnIndex(pick(["en", "pt-BR"] as const));
      index.add(`please use ${typed} now`);
      const spaces = [...typed.matchAll(/ /g)].map((m) => m.index!);
      const at = pick(spaces);
      const odd = pick(r() < 0.5 ? CONTROL : [...SPACES, "  ", "\r\n"]);
      const value = typed.slice(0, at) + odd + typed.slice(at + 1);
      expect(index.has(value), JSON.stringify(value)).toBe(false);
      expect(index.has(typed.toUpperCase())).toBe(true);
      // a control character typed inside a word is no word boundary either
      const glued = typed.replace(" ", pick(CONTROL));
      expect(index.has(glued), JSON.stringify(glued)).toBe(false);
    }
  });

  it("the issue's examples", () => {
    const index = new TurnIndex("en");
    index.add("subject hello world");
    for (const v of ["hello\r\nworld", "hello\u0000world", "hello\nworld", "hello\tworld", "hello\u00a0world", " hello world", "hello world\n"]) {
      expect(index.has(v), JSON.stringify(v)).toBe(v === " hello world");
    }
    expect(index.has("hello world")).toBe(true);
    expect(index.has("Hello World")).toBe(true);
    const k = new TurnIndex("en");
    k.add("set it to Kelvin");
    expect(k.has("\u212aelvin")).toBe(false); // the Kelvin sign is not the letter K
    expect(k.has("KELVIN")).toBe(true);
  });

  it("a compatibility character in place of a letter is not typed", () => {
    for (let i = 0; i < 500; i++) {
      const typed = phrase();
      const index = new TurnIndex(pick(["en", "pt-BR"] as const));
      index.add(typed);
      const positions = [...typed].map((c, j) => [c, j] as const).filter(([c]) => COMPAT[c]);
      if (positions.length === 0) continue;
      const [c, j] = pick(positions);
      const value = typed.slice(0, j) + pick(COMPAT[c]!) + typed.slice(j + 1);
      expect(index.has(value), JSON.stringify(value)).toBe(false);
    }
  });

  it("accents fold whichever way they are written; marks that make no accented letter do not", () => {
    const MARKS = ["\u0301", "\u0300", "\u0303", "\u0302", "\u0327", "\u0308"];
    const OVERLAYS = ["\u0335", "\u0336", "\u0337", "\u0338", "\u20d2", "\u0489"];
    for (let i = 0; i < 500; i++) {
      const typed = phrase();
      const index = new TurnIndex("pt-BR");
      index.add(typed);
      const chars = [...typed];
      const j = Math.floor(r() * chars.length);
      if (!/[aeiou]/.test(chars[j]!)) continue;
      const decomposed = [...chars.slice(0, j), chars[j]! + pick(MARKS), ...chars.slice(j + 1)].join("");
      const composed = decomposed.normalize("NFC");
      if (composed.length !== typed.length) continue; // no precomposed letter for this pair
      expect(index.has(composed), JSON.stringify(composed)).toBe(true);
      expect(index.has(decomposed), JSON.stringify(decomposed)).toBe(true);
      // an accented turn, an unaccented value: pt-BR turns may be typed either way
      const accented = new TurnIndex("pt-BR");
      accented.add(decomposed);
      expect(accented.has(typed)).toBe(true);
      // an overlay (a strike-through, a slash) or a second accent on the letter is not typed
      const overlaid = [...chars.slice(0, j), chars[j]! + pick(OVERLAYS), ...chars.slice(j + 1)].join("");
      expect(index.has(overlaid), JSON.stringify(overlaid)).toBe(false);
      const stacked = composed.slice(0, j + 1) + pick(MARKS) + composed.slice(j + 1);
      // (unless the two accents make one letter of the language, like Vietnamese `ṍ`)
      if (stacked.normalize("NFC").length > composed.length) expect(index.has(stacked), JSON.stringify(stacked)).toBe(false);
    }
  });

  it("a negation sign is not its base character", () => {
    const index = new TurnIndex("en");
    index.add("when a=b and x<y");
    expect(index.has("a\u2260b")).toBe(false); // ≠
    expect(index.has("x\u226ey")).toBe(false); // ≮
    expect(index.has("a=b")).toBe(true);
  });
});

describe("a value that names a destination is typed only as spelt, accents included (outside audit F5)", () => {
  const index = (language: Language, ...turns: string[]) => {
    const t = new TurnIndex(language);
    for (const x of turns) t.add(x);
    return t;
  };
  it("an accent the person did not type, or one they typed left out, is another host", () => {
    const en = index("en", "send the invoice to billing@paypal.com and fetch https://bäcker.de/x");
    expect(en.has("billing@paypal.com")).toBe(true);
    expect(en.has("Billing@PayPal.com")).toBe(true); // case folds: hosts ignore it
    expect(en.has("billing@pàypal.com")).toBe(false);
    expect(en.has("billing@paypaĺ.com")).toBe(false);
    expect(en.has("https://bäcker.de/x")).toBe(true);
    expect(en.has("https://ba\u0308cker.de/x")).toBe(true); // the same letter, decomposed
    expect(en.has("https://backer.de/x")).toBe(false);
    const pt = index("pt-BR", "mande o recibo para pedidos@lojá.com.br");
    expect(pt.has("pedidos@loja.com.br")).toBe(false);
    expect(pt.has("pedidos@lojá.com.br")).toBe(true);
  });
  it("what names no destination still folds accents, as before", () => {
    const pt = index("pt-BR", "entregar em São Paulo, rua Açaí 12");
    expect(pt.has("sao paulo")).toBe(true);
    expect(pt.has("Acai")).toBe(true);
    // from a folded turn (the session's cache) it is the same
    const t = new TurnIndex("en");
    t.add(tokenizeTurn("mail ana@müller.de", "en"));
    expect(t.has("ana@muller.de")).toBe(false);
    expect(t.has("ana@müller.de")).toBe(true);
  });
});

describe("a minus sign before the currency sign (outside audit F10)", () => {
  const cases: readonly (readonly [Language, string, number, boolean])[] = [
    ["en", "refund -$40", -40, true],
    ["en", "refund -$40", 40, false],
    ["en", "refund −$ 40.00", -40, true],
    ["pt-BR", "estorne -R$ 40,00", -40, true],
    ["pt-BR", "estorne -R$ 40,00", 40, false],
    ["en", "anything between $10-$40", 40, true],
    ["en", "anything between $10-$40", -40, false],
    ["en", "refund $-40", -40, true],
    ["en", "refund $40", 40, true],
  ];
  for (const [language, turn, value, found] of cases) {
    it(`${language} ${JSON.stringify(turn)} ${found ? "holds" : "does not hold"} ${value}`, () => {
      const t = new TurnIndex(language);
      t.add(turn);
      expect(t.has(value)).toBe(found);
    });
  }
});

describe("an object or array value: its keys and how often each leaf is used (outside audit F3)", () => {
  const cases: readonly (readonly [string, unknown, ReadonlySet<string> | undefined, boolean])[] = [
    ["order 4411", { a: "4411" }, undefined, false],
    ["order 4411", { delete_all_orders: "4411" }, new Set(["a"]), false],
    ["order 4411", { a: "4411" }, new Set(["a"]), true],
    ["order 4411", { x: { y: { z: "4411" } } }, new Set(["x", "y", "z"]), true],
    ["order 4411", { x: { y: { z: "4411" } } }, new Set(["x", "z"]), false],
    ["order 4411 for the role admin", { role: "4411" }, undefined, true], // a typed key
    ["order 4411", { a: "4411", b: "4411" }, new Set(["a", "b"]), false],
    ["order 4411 and 4411", { a: "4411", b: "4411" }, new Set(["a", "b"]), true],
    ["order 4411", ["4411", "4411", "4411"], undefined, false],
    ["orders 4411, 4411 and 4411", ["4411", "4411", "4411"], undefined, true],
    ["refund 40", [40, 40, 40], undefined, false],
    ["refund 40", [40], undefined, true],
    ["refund 40, then 40", [40, 40], undefined, true],
    ["refund $40 and $40.00", [40, 40], undefined, true],
    ["refund 40", [40, "40"], undefined, true], // a number and a numeric string are two values
    ["Milk", ["milk", "MILK"], undefined, false], // folded: one value, used twice
  ];
  for (const [turn, value, keys, found] of cases) {
    it(`${JSON.stringify(value)} in ${JSON.stringify(turn)}${keys ? ` (declared ${[...keys].join(", ")})` : ""} → ${found}`, () => {
      const t = new TurnIndex("en");
      t.add(turn);
      expect(t.has(value, keys)).toBe(found);
    });
  }

  it("a use counted over several turns, each searched on its own", () => {
    const t = new TurnIndex("en");
    t.add("refund 40");
    expect(t.has([40, 40])).toBe(false);
    t.add("and another 40");
    expect(t.has([40, 40])).toBe(true);
    expect(t.has([40, 40, 40])).toBe(false);
  });
});

describe("declaredKeys: the keys an args schema declares for one argument", () => {
  const schema = {
    type: "object",
    properties: {
      address: { type: "object", properties: { street: { type: "string" }, geo: { properties: { lat: {}, lon: {} } } } },
      items: { type: "array", items: { $ref: "#/$defs/item" } },
      plain: { type: "string" },
    },
    additionalProperties: { type: "object", properties: { note: {} } },
    $defs: { item: { type: "object", properties: { sku: {}, qty: {} } } },
  };
  it("names under `properties` at any depth, through `$ref` to `$defs`, and `additionalProperties` for undeclared arguments", () => {
    expect([...declaredKeys(schema, "address")].sort()).toEqual(["geo", "lat", "lon", "street"]);
    expect([...declaredKeys(schema, "items")].sort()).toEqual(["qty", "sku"]);
    expect([...declaredKeys(schema, "plain")]).toEqual([]);
    expect([...declaredKeys(schema, "other")]).toEqual(["note"]);
    expect([...declaredKeys({ properties: { a: {} } }, "__proto__")]).toEqual([]);
    expect([...declaredKeys(undefined, "a")]).toEqual([]);
  });
});

/** Is `value` typed in the one turn `turn` (en)? */
const typed = (turn: string, value: string) => {
  const t = new TurnIndex("en");
  t.add(turn);
  return t.has(value);
};

describe("a destination cut out of a typed one is not typed (outside audit 18, F3)", () => {
  it("a piece cut at `-`, `/`, `+` or `\\`, or before a dot, `@` or userinfo, names another host or mailbox", () => {
    const cuts: readonly (readonly [string, string])[] = [
      ["see https://intranet-wiki.example.com/page", "https://intranet"],
      ["open http://localhost-dev.example.com/", "http://localhost"],
      ["open //intranet-wiki.example.com/x", "//intranet"],
      ["open \\\\fs-evil.example.com\\share", "\\\\fs"],
      ["write to ops@corp-mail.example.com", "ops@corp"],
      ["write to ops-team@example.com", "team@example.com"],
      ["write to ops+evil.test@example.com", "evil.test@example.com"],
      ["write to ops/x@example.com", "x@example.com"],
      ["write to ops_x@example.com", "x@example.com"],
      ["write to ops@example.com.evil.net", "ops@example.com"],
      ["see https://good.com//evil.com", "//evil.com"],
      ["see https://good.com/evil.com", "evil.com"],
      ["see https://good.com:pw@evil.com", "https://good.com"],
      ["see https://good.com:80@evil.com", "https://good.com"],
      ["see https://good.com.evil.net/", "https://good.com"],
      ["see https://good.com%2eevil.net/", "https://good.com"],
      ["see www.example.com", "example.com"],
      ["see evil-example.com:8080", "example.com:8080"],
      ["see https://good.comé.net/", "https://good.com"],
    ];
    for (const [turn, value] of cuts) expect(typed(turn, value), `${value} in ${turn}`).toBe(false);
  });
  it("a destination typed whole stays typed: a port, a path, inside a URL, before punctuation, quoted, in a list", () => {
    const whole: readonly (readonly [string, string])[] = [
      ["see https://intranet-wiki.example.com/page", "https://intranet-wiki.example.com/page"],
      ["open http://localhost:3000/x", "http://localhost"],
      ["open example.com:8080", "example.com"],
      ["see https://example.com/docs", "example.com"],
      ["see https://example.com/docs", "https://example.com"],
      ["see \\\\fs\\share", "\\\\fs"],
      ["see https://good.com./", "https://good.com"],
      ["mail ops@example.com.", "ops@example.com"],
      ["mail <ops@example.com>, thanks", "ops@example.com"],
      ["mail (ops@example.com)", "ops@example.com"],
      ["mail \"ops@example.com\"", "ops@example.com"],
      ["mail 'ops@example.com'", "ops@example.com"],
      ["mail mailto:ops@example.com", "ops@example.com"],
      ["mail ana@x.com, ops@example.com and bo@y.com", "ops@example.com"],
      // every occurrence is tried, not only the first
      ["see https://intranet-wiki.example.com/ and https://intranet/", "https://intranet"],
    ];
    for (const [turn, value] of whole) expect(typed(turn, value), `${value} in ${turn}`).toBe(true);
  });
  it("is found in one turn both as a token and as spelt, not pieced together from two turns", () => {
    const t = new TurnIndex("en");
    t.add("see pàypal.com"); // a token once folded, but not as spelt
    t.add("mail ops@paypal.com"); // as spelt, but no token: the domain of an address
    expect(t.has("paypal.com")).toBe(false);
  });
  it("stays linear on hostile text", () => {
    const t = new TurnIndex("en");
    t.add("ops-a.example.com ".repeat(50_000));
    t.add("a.".repeat(200_000));
    const start = performance.now();
    expect(t.has("a.example.com")).toBe(false);
    expect(t.has("a.a.a.a.a.a.a.a.a.example.com")).toBe(false);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe("what joins a host or a mailbox is more than ASCII letters and `-` (outside audit 19, F5, F6, F14)", () => {
  it("Unicode hyphens, atext a mailbox holds, and what a URL parser keeps in a host join it", () => {
    const cuts: readonly (readonly [string, string])[] = [
      ["see https://intranet\uFF0Dwiki.example.com/", "https://intranet"], // full-width hyphen: `-` to a URL parser
      ["see https://intranet\u2010wiki.example.com/", "https://intranet"],
      ["see https://intranet\u2212wiki.example.com/", "https://intranet"],
      ["write to ops\uFF0Dteam@example.com", "team@example.com"],
      ["write to ops\u2010team@example.com", "team@example.com"],
      ["write to team@example.com\uFF0Devil.net", "team@example.com"],
      ["write to ops|team@example.com", "team@example.com"],
      ["write to ops{team@example.com", "team@example.com"],
      ["write to ops^team@example.com", "team@example.com"],
      ["write to ops`team@example.com", "team@example.com"],
      ["write to ops=team@example.com", "team@example.com"],
      ["see https://intranet~wiki/", "https://intranet"],
      ["see https://intranet$wiki/", "https://intranet"],
      ["see https://intranet&wiki/", "https://intranet"],
      ["see https://intranet+wiki/", "https://intranet"],
      ["see https://intranet,wiki/", "https://intranet"],
      ["see https://intranet!wiki/", "https://intranet"],
      ["see https://intranet;wiki/", "https://intranet"],
      ["see https://intranet=wiki/", "https://intranet"],
      ["see https://intranet*wiki/", "https://intranet"],
    ];
    for (const [turn, value] of cuts) expect(typed(turn, value), `${value} in ${turn}`).toBe(false);
  });
  it("prose around a destination still leaves it typed", () => {
    const whole: readonly (readonly [string, string])[] = [
      ["open https://docs.example.com, then wait", "https://docs.example.com"],
      ["(see https://docs.example.com)", "https://docs.example.com"],
      ["[the docs](https://docs.example.com)", "https://docs.example.com"],
      ["is it https://docs.example.com?", "https://docs.example.com"],
      ["it is https://docs.example.com!", "https://docs.example.com"],
      ["url: https://docs.example.com; then", "https://docs.example.com"],
      ["send to ops@example.com, bo@example.com", "ops@example.com"],
      ["to:ops@example.com", "ops@example.com"],
      ["mail ops@example.com\u3002", "ops@example.com"],
      ["host=docs.example.com", "docs.example.com"],
      ["*https://docs.example.com*", "https://docs.example.com"],
    ];
    for (const [turn, value] of whole) expect(typed(turn, value), `${value} in ${turn}`).toBe(true);
  });
});

describe("inference does not call a cut destination typed (outside audit 18, F3)", () => {
  const view = (turn: string) => ({ language: "en" as const, turns: [turn], results: [], context: {} });
  it("infers no `typed` for a host or mailbox cut out of a typed one", () => {
    expect(inferOrigins({ url: "https://intranet" }, view("see https://intranet-wiki.example.com/page")).url!.origin).not.toBe("typed");
    expect(inferOrigins({ to: "team@example.com" }, view("write to ops-team@example.com")).to!.origin).not.toBe("typed");
    expect(inferOrigins({ to: "ops-team@example.com" }, view("write to ops-team@example.com")).to!.origin).toBe("typed");
  });
});
