/**
 * What Phero (the Go framework whose session format the JSON-file and NATS stores share) makes of
 * a stored session, modelled on the file Phero's own code wrote (`test/fixtures/phero/
 * phero-jsonfile-session.json`): Go's JSON decoding matches field names case-insensitively and
 * skips unknown ones, but the top level must be an array of messages.
 */
import { readFileSync } from 'node:fs';
import { fixturePath } from './paths';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The Phero fixture's messages: every field Phero writes, in Go's names. */
const FIXTURE = JSON.parse(
  readFileSync(fixturePath('phero', 'phero-jsonfile-session.json'), 'utf8'),
) as JsonObject[];

const MESSAGE_TEMPLATE = FIXTURE[0]!;
const PART_TEMPLATE = (FIXTURE[0]!.Parts as JsonObject[])[0]!;
const TOOL_CALL_TEMPLATE = FIXTURE.flatMap((m) => (m.ToolCalls as JsonObject[] | null) ?? [])[0]!;

/** The value of `name` in `value`, matched as Go matches it (case-insensitively). */
function field(value: JsonObject, name: string): Json | undefined {
  const wanted = name.toLowerCase();
  const key = Object.keys(value).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : value[key];
}

/** A zero value of `template`'s type, as Go writes a field it has no value for. */
function zeroOf(template: Json): Json {
  if (typeof template === 'string') return '';
  if (typeof template === 'boolean') return false;
  if (typeof template === 'number') return 0;
  return null;
}

/** `value` re-encoded with `template`'s fields only (Go names, zero values where absent). */
function asGo(
  value: JsonObject,
  template: JsonObject,
  nested: Record<string, JsonObject>,
): JsonObject {
  const out: JsonObject = {};
  for (const [name, example] of Object.entries(template)) {
    const got = field(value, name);
    if (got === undefined || got === null) out[name] = zeroOf(example);
    else if (nested[name] && Array.isArray(got))
      out[name] = (got as JsonObject[]).map((item) => asGo(item, nested[name]!, nested));
    else if (nested[name] && typeof got === 'object')
      out[name] = asGo(got as JsonObject, nested[name]!, nested);
    else out[name] = got;
  }
  return out;
}

const NESTED: Record<string, JsonObject> = {
  Parts: PART_TEMPLATE,
  ToolCalls: TOOL_CALL_TEMPLATE,
  Function: TOOL_CALL_TEMPLATE.Function as JsonObject,
};

/**
 * What Phero's decoding reads from a stored session: each message with Phero's fields only.
 * @throws Error as Phero fails (`cannot unmarshal object into Go value of type []llm.Message`)
 *   when the top level is not an array, or when a known field has another type than Phero's.
 */
export function pheroDecode(raw: unknown): JsonObject[] {
  if (!Array.isArray(raw)) {
    throw new Error(`json: cannot unmarshal ${typeof raw} into Go value of type []llm.Message`);
  }
  return raw.map((message: unknown, i) => {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      throw new Error(`message ${i} is not an object`);
    }
    const decoded = asGo(message as JsonObject, MESSAGE_TEMPLATE, NESTED);
    for (const [name, example] of Object.entries(MESSAGE_TEMPLATE)) {
      const got = decoded[name];
      const listLike = example === null || Array.isArray(example);
      const ok = listLike ? got === null || Array.isArray(got) : typeof got === typeof example;
      if (!ok) throw new Error(`message ${i}: ${name} is not what Phero reads`);
    }
    return decoded;
  });
}

/** What a Phero process that loads a session and saves it back writes: the array without our marks. */
export function pheroRewrite(raw: unknown): JsonObject[] {
  return pheroDecode(raw);
}
