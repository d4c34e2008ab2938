/**
 * The forms a credential travels in, as the registry searches for them (and
 * a leak check should): as is; JSON-escaped (a PEM key inside a JSON body);
 * URL-encoded (a query string); base64, whole and embedded at any byte
 * offset of a longer base64 text (a kubeconfig's `*-data` fields, a
 * Secret's `data`, an `Authorization: Basic` header).
 */

/**
 * Shorter values are not registered. Replacing a two- or five-character
 * value everywhere would garble unrelated text ("admin", "test"), and the
 * pattern of what got replaced would itself reveal the value; a credential
 * that short is guessable anyway.
 */
export const MIN_SECRET_LENGTH = 8;

/** Every form of `value` at least `MIN_SECRET_LENGTH` long, without repeats. Never throws, whatever the value holds. */
export function credentialForms(value: string): string[] {
  const forms = new Set([value, JSON.stringify(value).slice(1, -1), ...urlEncoded(value), ...base64Forms(value)]);
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * A lone surrogate (a string cut inside a character) has no UTF-8 and so
 * no URL encoding: `encodeURIComponent` throws on it, and no URL can carry
 * the value as it is.
 */
function urlEncoded(value: string): string[] {
  try {
    return [encodeURIComponent(value)];
  } catch {
    return [];
  }
}

function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = [bytes.toString("base64")];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Characters of a 4-character group that also encodes bytes outside the
    // value depend on those bytes: drop the first group when preceded by
    // others, and the last one when the value does not end on a group boundary.
    const start = offset === 0 ? 0 : 4;
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4;
    forms.push(encoded.slice(start, end));
  }
  return forms;
}
