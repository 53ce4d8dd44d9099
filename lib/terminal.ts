// Text from elsewhere (an upstream's error, a stored run error, an organization name) printed to an
// operator's terminal: its control characters could clear the screen (ESC [2J), forge a line (a
// newline), hide a link behind other text (OSC 8) or reorder what is shown (bidirectional controls).

/** Control characters (C0, DEL, C1), and the bidirectional controls that reorder what a terminal shows. */
export const TERMINAL_CONTROL = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

const ALL_CONTROLS = new RegExp(TERMINAL_CONTROL, 'gu');

/**
 * `text` with every control character escaped as in JSON (`\n`, `\u001b`), so it prints as data. In
 * JSON text, which escapes only C0, the result is still JSON with the same value.
 */
export function printable(text: string): string {
  return text.replace(ALL_CONTROLS, (c) => {
    const json = JSON.stringify(c).slice(1, -1);
    return json.length > 1 ? json : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** The controls JSON.stringify leaves raw in strings: DEL, C1 and the bidirectional ones. */
const JSON_RAW_CONTROLS = /[\u007f-\u009f\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/** `value` as indented JSON that prints as data: the same JSON, with every control character escaped. */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
