/**
 * The adapters' shared test ground: a small billing catalogue, a fresh licensed session, and the
 * tools' counting bodies (how often each really ran), the same for both frameworks.
 */
import { Client } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

export const CATALOGUE = `
settings: {language: en, taint_policy: confirm}
tools:
  - name: get_order
    args: {type: object, properties: {order_id: {type: string}}, required: [order_id], additionalProperties: false}
    returns: {type: object, properties: {order_id: {type: string}, total: {type: number}, customer: {type: string}}}
  - name: read_inbox
    reads_outside: true
    args: {type: object, properties: {}, additionalProperties: false}
    returns: {type: object, properties: {from: {type: string}, account: {type: string}, amount: {type: number}}}
  - name: refund_card
    writes: true
    money: true
    after: [get_order]
    args: {type: object, properties: {order_id: {type: string}, amount: {type: number}}, required: [order_id, amount], additionalProperties: false}
    returns: {type: object, properties: {refund_id: {type: string}}}
  - name: tag_order
    writes: true
    confirm: when_held
    args: {type: object, properties: {order_id: {type: string}, tag: {type: string}}, required: [order_id, tag], additionalProperties: false}
  - name: pay_invoice
    writes: true
    confirm: when_held
    args: {type: object, properties: {account: {type: string}, amount: {type: number}}, required: [account, amount], additionalProperties: false}
`;

export const INBOX = { from: "billing@supplier.test", account: "acct-666", amount: 50 };

/** A client on a fresh licensed home, and a session on the catalogue. */
export function freshSession(name = "adapters", home = licensedHome("adapters")) {
  const client = new Client({ home });
  return { client, home, session: client.session(name, { catalogue: CATALOGUE }) };
}

/** What each tool body did: its calls, in order, with their arguments. */
export function bodies() {
  const ran: { tool: string; args: unknown }[] = [];
  const count = (tool: string) => ran.filter((r) => r.tool === tool).length;
  const impl = {
    get_order: (args: { order_id: string }) => {
      ran.push({ tool: "get_order", args });
      if (args.order_id === "0000") throw new Error("the order service is down");
      return { order_id: args.order_id, total: 40, customer: "c-208" };
    },
    read_inbox: (args: Record<string, never>) => (ran.push({ tool: "read_inbox", args }), { ...INBOX }),
    refund_card: (args: { order_id: string; amount: number }) => (ran.push({ tool: "refund_card", args }), { refund_id: `rf-${args.order_id}` }),
    tag_order: (args: { order_id: string; tag: string }) => (ran.push({ tool: "tag_order", args }), { ok: true }),
    pay_invoice: (args: { account: string; amount: number }) => (ran.push({ tool: "pay_invoice", args }), { paid: true }),
  };
  return { ran, count, impl };
}

/** A session whose every check throws (a broken store, a dead worker): the guard must refuse. */
export function brokenSession() {
  return {
    id: "broken",
    history: { entries: [] },
    read: async () => ({ step: 0 }),
    checkToolCall: async (): Promise<never> => {
      throw new Error("the check store is unreachable");
    },
    report: async () => ({ step: 0 }),
  };
}
