/**
 * The JSON Schema (draft-07) of `agent.yaml` itself: its words and their types (interfaces.md
 * "Catalogue", checks.md "Conditions, limits, spend, outcomes", "Order rules").
 *
 * This object is compiled ahead of time by `scripts/gen-catalogue-validator.mjs` (ajv standalone)
 * into `generated/validate-catalogue.ts`, because the catalogue is also checked inside workerd,
 * where generating code from strings is forbidden. A test regenerates it and compares.
 * It is also read at run time, only to explain errors: `x-expect` says, in words, what a place
 * expects (the hint for a wrong type), and `properties` lists the known words (for "did you mean").
 *
 * Alternatives are written `if`/`then`/`else` on the value's type rather than `oneOf`, so that an
 * error names the one branch that applies instead of every branch that failed.
 * The meaning (tools that must exist, `filter` only on reads, …) is lint-meaning.ts's job.
 *
 * `http:` entries: `{name, method, path}` + any tool word except `writes` (GET reads, POST / PUT /
 * PATCH / DELETE write). `code:` entries (seed 000, "Seu próprio código"): `{name, function}` +
 * any tool word, and an optional `sandbox: {network, secrets, mounts, allow, limits: {cpu_ms,
 * memory_mb, timeout_s}, level: advanced}`; a code entry writes unless it says `writes: false`
 * ("a function without @tool marks counts as a write"). Both are read and validated; nothing
 * calls them yet. `description` is accepted on tools, agents and tasks.
 */

/**
 * At most 128 characters, as MCP advises for a tool's name: a name is part of the state stores'
 * keys ("seen:<tool>" is at most 256; state/rules.ts), and a longer one made every call of the tool
 * fail in the store instead of the catalogue failing its check.
 */
const NAME_PATTERN = "^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$";
const PERIODS = ["call", "run", "session", "minute", "hour", "day", "week", "month"] as const;
export const OPERATORS = ["is", "is_not", "one_of", "none_of", "at_least", "at_most", "under", "over", "between", "before", "after", "contains"] as const;
export const SUBJECTS = ["field", "total", "count"] as const;
const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const name = { type: "string", pattern: NAME_PATTERN, "x-expect": "a name: letters, digits, `_` and `-` (no dots), at most 128 characters" };
const toolName = { ...name, "x-expect": "a tool name (at most 128 characters)" };
const toolNames = { type: "array", items: toolName, "x-expect": "a list of tool names, e.g. `[get_order]`" };
const text = { type: "string", "x-expect": "a string" };
const path = { type: "string", pattern: "\\S", "x-expect": "a field path, e.g. `status` or `\"items[].price\"`" };
const bool = { type: "boolean", "x-expect": "true or false" };
const scalar = { type: ["string", "number", "boolean", "null"], "x-expect": "a value (a string, a number, true/false), or `{from: tool.field}`" };
const fromRef = { $ref: "#/definitions/from" };
const number = { type: "number", "x-expect": "a number, or `{from: tool.field}`" };
const dateText = { type: "string", "x-expect": "a date, e.g. `\"2025-01-31\"`, or `{from: tool.field}`" };

const conditionList = { type: "array", items: { $ref: "#/definitions/condition" }, "x-expect": "a list of conditions, e.g. `[{field: status, is: paid}]`" };

const rate = {
  type: "object",
  properties: {
    count: { type: "integer", minimum: 1, "x-expect": "a whole number ≥ 1" },
    per: { enum: [...PERIODS], "x-expect": `one of ${PERIODS.join(", ")}` },
  },
  required: ["count", "per"],
  additionalProperties: false,
  "x-expect": "`{count: N, per: day}`",
};

/** The larger words, kept once under `definitions` and referred to from each kind of entry. */
const wordDefinitions = {
  description: text,
  writes: bool,
  irreversible: bool,
  money: bool,
  undo: toolName,
  sends_out: { type: "array", items: { type: "string", "x-expect": 'a destination: `api.example.com`, `*.example.com`, `name@example.com`, `*@example.com`, an IP, or `"*"`' }, "x-expect": 'an allow-list, e.g. `["*.example.com", "receipts@example.com"]`' },
  lookup_args: { type: "array", items: { type: "string", "x-expect": "an argument name" }, "x-expect": "a list of argument names" },
  reads_outside: bool,
  trust: { enum: ["trusted", "untrusted"], "x-expect": "`trusted` or `untrusted`" },
  confirm: { enum: ["always", "when_held"], "x-expect": "`always` or `when_held`" },
  after: {
    type: "array",
    items: {
      if: { type: "string" },
      then: toolName,
      else: {
        type: "object",
        properties: {
          tool: toolName,
          bind: { type: "object", additionalProperties: { type: "string", "x-expect": "a field of that tool's result" }, "x-expect": "`{argument: field}`" },
        },
        required: ["tool"],
        additionalProperties: false,
        "x-expect": "a tool name or `{tool: get_order, bind: {order_id: order_id}}`",
      },
    },
    "x-expect": "a list of tool names or `{tool, bind}`",
  },
  not_after: { type: "array", items: toolName, "x-expect": "a list of tool names, or `[untrusted]`" },
  at_most: {
    "x-expect": "a whole number ≥ 1 (calls per session), `{count: N, per: day}`, or a list of them",
    if: { type: "number" },
    then: { type: "integer", minimum: 1, "x-expect": "a whole number ≥ 1 (calls per session)" },
    else: {
      if: { type: "array" },
      then: { type: "array", items: rate, minItems: 1, "x-expect": "a list of `{count, per}`" },
      else: rate,
    },
  },
  checks: conditionList,
  filter: {
    type: "object",
    properties: {
      each: path,
      keep: { ...conditionList, minItems: 1 },
      unknown: { enum: ["pass", "drop"], "x-expect": "`pass` (keep a record lacking the value) or `drop`" },
    },
    required: ["each", "keep"],
    additionalProperties: false,
    "x-expect": "`{each: list[], keep: [conditions]}`",
  },
  spend: {
    type: "array",
    items: {
      type: "object",
      properties: {
        field: path,
        at_most: { type: "number", minimum: 0, "x-expect": "a number ≥ 0" },
        per: { enum: [...PERIODS], "x-expect": `one of ${PERIODS.join(", ")}` },
        pool: name,
      },
      required: ["field", "at_most", "per"],
      additionalProperties: false,
      "x-expect": "`{field: amount, at_most: 25, per: call}`",
    },
    "x-expect": "a list of `{field, at_most, per, pool?}`",
  },
  currency: { type: "string", pattern: "^[A-Z]{3}$", "x-expect": "an ISO 4217 code: three capital letters, e.g. `USD`" },
  outcome: {
    type: "object",
    properties: {
      follow: toolName,
      same: path,
      done_when: conditionList,
      failed_when: conditionList,
      give_up_after: { type: "number", exclusiveMinimum: 0, "x-expect": "minutes, a number > 0" },
    },
    required: ["follow", "same", "give_up_after"],
    additionalProperties: false,
    "x-expect": "`{follow: get_order, same: order_id, done_when: [...], give_up_after: 60}`",
  },
  args: { type: "object", "x-expect": "a JSON Schema map, e.g. `{type: object, properties: {...}}`" },
  returns: { type: "object", "x-expect": "a JSON Schema map, e.g. `{type: object, properties: {...}}`" },
  // `stalwart gateway`: the digest of an MCP tool's description and input schema when the
  // catalogue was written (cli/gateway/pins.ts); the check itself does not read it.
  pin: { type: "string", pattern: "^(v2:)?sha256:[0-9a-f]{64}$", "x-expect": "`v2:sha256:` and 64 hex digits, as `stalwart gateway init` writes it (or the older `sha256:` form)" },
};

/** Words every tool entry (`tools:`, `http:`, `code:`) may carry: each a `$ref` to its definition. */
const toolWords: Record<string, { $ref: string }> = Object.fromEntries(Object.keys(wordDefinitions).map((k) => [k, { $ref: `#/definitions/${k}` }]));
const { writes: _writes, ...httpWords } = toolWords;

export const catalogueSchema = {
  $id: "stalwart:agent.yaml",
  type: "object",
  "x-expect": "a map with `settings`, `agents`, `tools`, `tasks`, `http`, `code`",
  properties: {
    settings: {
      type: "object",
      properties: {
        language: { enum: ["en", "pt-BR"], "x-expect": "`en` or `pt-BR`" },
        taint_policy: { enum: ["confirm", "refuse"], "x-expect": "`confirm` or `refuse`" },
        on_licence_lapse: { enum: ["reads_only", "refuse"], "x-expect": "`reads_only` or `refuse`" },
        confirmation_ttl: { type: "string", pattern: "^[1-9][0-9]{0,5}[smhdw]$", "x-expect": "a duration like `30m`, `12h`, `1d`, `7d`" },
      },
      additionalProperties: false,
      "x-expect": "a map of settings",
    },
    agents: {
      type: "array",
      items: {
        type: "object",
        properties: { name, tools: toolNames, trust: wordDefinitions.trust, description: text },
        required: ["name", "tools"],
        additionalProperties: false,
        "x-expect": "`{name: billing, tools: [get_order], trust: trusted}`",
      },
      "x-expect": "a list of agents",
    },
    tools: {
      type: "array",
      items: { type: "object", properties: { name, ...toolWords }, required: ["name"], additionalProperties: false, "x-expect": "a tool: `{name: get_order, …}`" },
      "x-expect": "a list of tools",
    },
    http: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name,
          method: { enum: [...HTTP_METHODS], "x-expect": `one of ${HTTP_METHODS.join(", ")} (GET reads, the others write)` },
          path: { type: "string", pattern: "^/", "x-expect": "a path starting with `/`, e.g. `/orders/{order_id}`" },
          ...httpWords,
        },
        required: ["name", "method", "path"],
        additionalProperties: false,
        "x-expect": "`{name: get_order, method: GET, path: /orders/{order_id}}`",
      },
      "x-expect": "a list of `{name, method, path}`",
    },
    code: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name,
          function: { type: "string", pattern: "^[A-Za-z_$][A-Za-z0-9_$]*(?:[.:][A-Za-z_$][A-Za-z0-9_$]*)*$", "x-expect": "the function's name, e.g. `refund` or `billing.refund`" },
          sandbox: {
            type: "object",
            properties: {
              network: { type: "array", items: { type: "string" }, "x-expect": "a list of destinations, like `sends_out`" },
              secrets: { type: "array", items: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$", "x-expect": "a secret's name, e.g. `STRIPE_KEY`" }, "x-expect": "a list of secret names" },
              mounts: { type: "array", items: { type: "string", pattern: "\\S", "x-expect": "a folder path" }, "x-expect": "a list of folders it may read" },
              allow: { type: "array", items: { type: "string", pattern: "^[a-z0-9_]+$", "x-expect": "a system call name" }, "x-expect": "a list of extra system calls" },
              limits: {
                type: "object",
                properties: {
                  cpu_ms: { type: "integer", minimum: 1, "x-expect": "milliseconds, a whole number ≥ 1" },
                  memory_mb: { type: "integer", minimum: 1, "x-expect": "megabytes, a whole number ≥ 1" },
                  timeout_s: { type: "integer", minimum: 1, "x-expect": "seconds, a whole number ≥ 1" },
                },
                additionalProperties: false,
                "x-expect": "`{cpu_ms, memory_mb, timeout_s}`",
              },
              level: { enum: ["advanced"], "x-expect": "`advanced` (or leave it out)" },
            },
            additionalProperties: false,
            "x-expect": "`{network, secrets, mounts, allow, limits, level}`",
          },
          ...toolWords,
        },
        required: ["name", "function"],
        additionalProperties: false,
        "x-expect": "`{name: refund, function: refund}`",
      },
      "x-expect": "a list of `{name, function}`",
    },
    tasks: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name,
          steps: { enum: ["in_order", "all_at_once"], "x-expect": "`in_order` or `all_at_once`" },
          tools: { ...toolNames, minItems: 1 },
          description: text,
        },
        required: ["name", "steps", "tools"],
        additionalProperties: false,
        "x-expect": "`{name: checkout, steps: all_at_once, tools: [create_order, charge_card]}`",
      },
      "x-expect": "a list of tasks",
    },
  },
  additionalProperties: false,
  definitions: {
    ...wordDefinitions,
    from: {
      type: "object",
      properties: {
        from: { type: "string", pattern: "^[^.]+\\..+$", "x-expect": "`tool.field`, e.g. `check_stock.in_stock`" },
        from_row: { ...path, "x-expect": "a field of the same record" },
        same: { ...name, "x-expect": "an argument both tools take, e.g. `sku`: read the result of the call with this call's value" },
      },
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 2,
      // `from_row` stands alone; `same` joins a `from`
      if: { required: ["from_row"] },
      then: { maxProperties: 1 },
      else: { if: { required: ["same"] }, then: { required: ["from"] } },
      "x-expect": "`{from: tool.field}`, `{from: tool.field, same: argument}` (or, in a filter, `{from_row: field}`)",
    },
    condition: {
      type: "object",
      "x-expect": "a condition: `{field: quantity, at_most: 5}` or `{any: [...]}`",
      if: { required: ["any"] },
      then: {
        properties: { any: { ...conditionList, minItems: 1 }, because: text },
        additionalProperties: false,
      },
      else: {
        properties: {
          field: path,
          total: path,
          count: path,
          because: text,
          is: { if: { type: "object" }, then: fromRef, else: scalar },
          is_not: { if: { type: "object" }, then: fromRef, else: scalar },
          contains: { if: { type: "object" }, then: fromRef, else: scalar },
          one_of: { if: { type: "object" }, then: fromRef, else: { type: "array", items: scalar, "x-expect": "a list of values, or `{from: tool.field}`" } },
          none_of: { if: { type: "object" }, then: fromRef, else: { type: "array", items: scalar, "x-expect": "a list of values, or `{from: tool.field}`" } },
          at_least: { if: { type: "object" }, then: fromRef, else: number },
          at_most: { if: { type: "object" }, then: fromRef, else: number },
          under: { if: { type: "object" }, then: fromRef, else: number },
          over: { if: { type: "object" }, then: fromRef, else: number },
          before: { if: { type: "object" }, then: fromRef, else: dateText },
          after: { if: { type: "object" }, then: fromRef, else: dateText },
          between: {
            if: { type: "object" },
            then: fromRef,
            else: {
              type: "array",
              minItems: 2,
              maxItems: 2,
              items: { type: ["number", "string"], "x-expect": "a number or a date" },
              "x-expect": "a two-item list `[low, high]`",
            },
          },
        },
        additionalProperties: false,
      },
    },
  },
} as const;

/** The words a tool entry may carry, for hints. */
const TOOL_WORDS: readonly string[] = Object.keys(wordDefinitions);
