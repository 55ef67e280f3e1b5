/**
 * JSON Schema (draft-07) of IR version 1. `compile` output always validates against it; loading
 * IR from anywhere else goes through `validateIR`.
 */
const stringList = { type: 'array', items: { type: 'string' } } as const;
const position = {
  type: 'object',
  required: ['line', 'column', 'offset'],
  additionalProperties: false,
  properties: {
    line: { type: 'integer', minimum: 1 },
    column: { type: 'integer', minimum: 1 },
    offset: { type: 'integer', minimum: 0 },
  },
} as const;

export const IR_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'dshpolicy-ir-1',
  title: 'dshpolicy IR, version 1',
  type: 'object',
  required: ['version', 'sources', 'rules', 'tests'],
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    name: { type: 'string' },
    sources: stringList,
    rules: { type: 'array', items: { $ref: '#/definitions/rule' } },
    tests: { type: 'array', items: { $ref: '#/definitions/test' } },
    unprotected: { type: 'array', uniqueItems: true, items: { enum: ['policy', 'claude', 'codex', 'gemini'] } },
  },
  definitions: {
    span: {
      type: 'object',
      required: ['file', 'start', 'end'],
      additionalProperties: false,
      properties: { file: { type: 'string' }, start: position, end: position },
    },
    seam: { enum: ['pre-tool', 'prompt', 'post-tool', 'stop', 'session-start'] },
    selector: {
      oneOf: [
        {
          type: 'object',
          required: ['kind', 'patterns'],
          additionalProperties: false,
          properties: { kind: { const: 'command' }, patterns: { ...stringList, minItems: 1 } },
        },
        {
          type: 'object',
          required: ['kind', 'globs'],
          additionalProperties: false,
          properties: { kind: { const: 'path' }, globs: { ...stringList, minItems: 1 }, case: { enum: ['fold', 'exact'] } },
        },
        {
          type: 'object',
          required: ['kind', 'globs'],
          additionalProperties: false,
          properties: { kind: { enum: ['url', 'domain'] }, globs: { ...stringList, minItems: 1 } },
        },
      ],
    },
    regex: {
      type: 'object',
      required: ['regex', 'flags'],
      additionalProperties: false,
      properties: { regex: { type: 'string' }, flags: { type: 'string', pattern: '^[ims]*$' } },
    },
    scalar: { type: ['string', 'number', 'boolean', 'null'] },
    value: {
      anyOf: [
        { $ref: '#/definitions/scalar' },
        { type: 'array', items: { $ref: '#/definitions/scalar' } },
        { $ref: '#/definitions/regex' },
      ],
    },
    field: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: { name: { type: 'string', minLength: 1 }, path: stringList },
    },
    expr: {
      oneOf: [
        {
          type: 'object',
          required: ['op', 'args'],
          additionalProperties: false,
          properties: { op: { enum: ['and', 'or'] }, args: { type: 'array', items: { $ref: '#/definitions/expr' } } },
        },
        {
          type: 'object',
          required: ['op', 'arg'],
          additionalProperties: false,
          properties: { op: { const: 'not' }, arg: { $ref: '#/definitions/expr' } },
        },
        {
          type: 'object',
          required: ['op', 'cmp', 'field', 'value'],
          additionalProperties: false,
          properties: {
            op: { const: 'compare' },
            cmp: { enum: ['==', '!=', 'in', 'matches', 'glob', 'startswith', 'endswith', 'contains'] },
            field: { $ref: '#/definitions/field' },
            value: { $ref: '#/definitions/value' },
          },
        },
        {
          type: 'object',
          required: ['op', 'field'],
          additionalProperties: false,
          properties: { op: { const: 'exists' }, field: { $ref: '#/definitions/field' } },
        },
        {
          type: 'object',
          required: ['op', 'tools', 'selectors'],
          additionalProperties: false,
          properties: {
            op: { const: 'ran' },
            tools: stringList,
            selectors: { type: 'array', items: { $ref: '#/definitions/selector' } },
          },
        },
        {
          type: 'object',
          required: ['op', 'value'],
          additionalProperties: false,
          properties: { op: { const: 'const' }, value: { type: 'boolean' } },
        },
      ],
    },
    hook: {
      type: 'object',
      required: ['command', 'dialect'],
      additionalProperties: false,
      properties: {
        command: { type: 'string', minLength: 1 },
        timeoutMs: { type: 'integer', minimum: 1 },
        dialect: { type: 'string', minLength: 1 },
        event: { type: 'string', minLength: 1 },
        matcher: { type: 'string' },
        args: { type: 'array', items: { type: 'string' } },
        shell: { const: 'bash' },
        http: {
          type: 'object',
          additionalProperties: false,
          properties: {
            headers: { type: 'object', additionalProperties: { type: 'string' } },
            allowedEnvVars: { type: 'array', items: { type: 'string' } },
          },
        },
        if: { type: 'string', minLength: 1 },
        pluginRoot: { type: 'string' },
        onDeadline: { enum: ['fail-closed', 'none'] },
        source: {
          type: 'object',
          required: ['file', 'pointer'],
          additionalProperties: false,
          properties: { file: { type: 'string' }, pointer: { type: 'string' } },
        },
      },
    },
    rule: {
      type: 'object',
      required: ['id', 'seam', 'effect'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', minLength: 1 },
        seam: { anyOf: [{ $ref: '#/definitions/seam' }, { const: 'agent-event' }] },
        effect: { enum: ['deny', 'ask', 'allow', 'block', 'context', 'continue', 'halt', 'run', 'limit'] },
        tools: { ...stringList, minItems: 1 },
        selectors: { type: 'array', items: { $ref: '#/definitions/selector' } },
        when: { $ref: '#/definitions/expr' },
        reason: { type: 'string' },
        text: { type: 'string' },
        limit: { type: 'integer', minimum: 1 },
        hook: { $ref: '#/definitions/hook' },
        span: { $ref: '#/definitions/span' },
      },
    },
    test: {
      type: 'object',
      required: ['name', 'event', 'expect'],
      additionalProperties: false,
      properties: {
        name: { type: 'string' },
        event: { type: 'object' },
        expect: { enum: ['deny', 'ask', 'allow', 'none', 'block', 'accept', 'halt', 'continue', 'stop'] },
        because: { $ref: '#/definitions/regex' },
        span: { $ref: '#/definitions/span' },
      },
    },
  },
} as const;
