// The fixed session bench/golden.mjs and test/core/golden-history.test.ts run: every entry kind,
// non-ASCII text, labels, values, a confirm and its token, an allow that consumes it, reports with
// and without results, an undo, a resume (full verification) and more checks after it. Plain JS
// over injected modules, so it runs on a built checkout or on the sources.
const KEY = new Uint8Array(32).map((_, i) => i + 1);
const ID = "0123456789abcdef0123456789abcdef";

export async function goldenSession({ Engine, Session, core, catalogue, schemaCompiler }) {
  let t = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
  const now = () => new Date((t += 1234.5));
  const engine = new Engine({ core, key: KEY, schemaCompiler, now });
  const answers = [];
  const s = new Session(engine, "billing", catalogue, { agent: "desk-ä", context: { tenant: "loja", n: 1.5 } }, ID);
  await s.read("estorne 40,00 do pedido 4411 — obrigado ✓");
  answers.push(await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } }));
  await s.report(1, "ran", { order_id: "4411", status: "paid", total: 40, card: "visa", extra: "dropped" });
  const ask = await s.checkToolCall("refund_card", { amount: 40, order_id: "4411" }, { origins: { order_id: "typed", amount: "model" } });
  answers.push(ask);
  answers.push(await s.checkToolCall("refund_card", { amount: 40, order_id: "4411" }, { origins: { order_id: "typed", amount: "model" }, confirmation: ask.confirmation }));
  await s.report(4, "ran", { refund_id: "r-1" });
  answers.push(await s.checkToolCall("read_inbox", { folder: "in\u0000box \"q\"" }, {}));
  await s.report(6, "ran", { messages: [{ from: "a@b.c", subject: "olá" }] });
  answers.push(await s.checkToolCall("refund_card", { order_id: "4411", amount: 1e21 }, { origins: { order_id: "typed", amount: "typed" }, labels: { amount: ["untrusted"] } }));
  answers.push(await s.checkToolCall("charge_card", { order_id: "4411", amount: 40 }, { undoOf: 4, origins: { order_id: "typed", amount: "typed" } }));
  answers.push(await s.checkToolCall("no_such_tool", { x: 1 }));
  answers.push(await s.checkToolCall("get_order", { order_id: 5 }));
  await s.report(8, "failed");
  const saved = JSON.stringify(s.toJSON());
  const r = Session.resume(engine, catalogue, JSON.parse(saved));
  answers.push(await r.checkToolCall("get_order", { order_id: "4411" }));
  await r.read("mais uma vez");
  answers.push(await r.checkToolCall("refund_card", { order_id: "4411", amount: 2.5 }, { origins: { order_id: "typed", amount: "model" } }));
  return { saved, answers: JSON.stringify(answers), resumed: JSON.stringify(r.toJSON()), entries: r.history.entries.length };
}
