import {
  CONTENT_PART_TYPES,
  ROLES,
  type ContentPartType,
  type Message,
  type Role,
} from './message';

/**
 * Whether `value`, fresh from a JSON parser, is already a message exactly as `decodeMessage`
 * would return it (canonical camelCase keys, no empty optional fields, no key it would drop), so
 * a store reading its own rows can take it as it is instead of rebuilding it. Anything else (a
 * row Phero or plain SQL wrote, a corrupt row) returns false and goes through `decodeMessage`,
 * which rebuilds it or names what is wrong. Allocates nothing.
 */
export function isCanonicalMessage(value: unknown): value is Message {
  if (!isObject(value)) return false;
  const role = value.role;
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) return false;
  for (const key in value) {
    const field = value[key];
    switch (key) {
      case 'role':
        break;
      case 'parts':
        if (!Array.isArray(field) || !field.every(isCanonicalPart)) return false;
        break;
      case 'toolCalls':
        if (role !== 'assistant' || !Array.isArray(field) || field.length === 0) return false;
        if (!field.every(isCanonicalToolCall)) return false;
        break;
      case 'toolCallId':
        if (role !== 'tool' || !isFilled(field)) return false;
        break;
      case 'toolError':
        if (role !== 'tool' || field !== true) return false;
        break;
      case 'name':
        if (!isFilled(field)) return false;
        break;
      case 'providerData':
        if (!isObject(field)) return false;
        break;
      default:
        return false;
    }
  }
  return Array.isArray(value.parts) && (role !== 'tool' || isFilled(value.toolCallId));
}

const TEXT_TYPES: readonly ContentPartType[] = ['text', 'reasoning', 'redacted_reasoning'];

function isCanonicalPart(value: unknown): boolean {
  if (!isObject(value)) return false;
  const type = value.type as ContentPartType;
  if (typeof type !== 'string' || !CONTENT_PART_TYPES.includes(type)) return false;
  const textual = TEXT_TYPES.includes(type);
  for (const key in value) {
    const field = value[key];
    switch (key) {
      case 'type':
        break;
      case 'text':
        if (!textual || typeof field !== 'string') return false;
        break;
      case 'signature':
        if (type !== 'reasoning' || !isFilled(field)) return false;
        break;
      case 'imageUrl':
        if (type !== 'image_url' || !isFilled(field)) return false;
        break;
      case 'imageBase64':
        if (type !== 'image_base64' || !isFilled(field)) return false;
        break;
      case 'mimeType':
        if (type !== 'image_base64' || !isFilled(field)) return false;
        break;
      case 'providerData':
        if (!isObject(field)) return false;
        break;
      default:
        return false;
    }
  }
  if (textual) return typeof value.text === 'string';
  return type === 'image_url' ? isFilled(value.imageUrl) : isFilled(value.imageBase64);
}

function isCanonicalToolCall(value: unknown): boolean {
  if (!isObject(value) || Object.keys(value).length !== 3) return false;
  const fn = value.function;
  return (
    isFilled(value.id) &&
    value.type === 'function' &&
    isObject(fn) &&
    Object.keys(fn).length === 2 &&
    isFilled(fn.name) &&
    typeof fn.arguments === 'string'
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFilled(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
