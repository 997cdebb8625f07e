/** The injection token of the chat's {@link ChatModel}. */
export const CHAT_MODEL = Symbol('CHAT_MODEL');
/** The injection token of the session id the chat works on. */
export const CHAT_SESSION_ID = Symbol('CHAT_SESSION_ID');
