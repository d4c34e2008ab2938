/**
 * Records kept as JSON arrays in annotations: what a controller did, where
 * the object it is about holds it across restarts. Annotations can be
 * edited by hand, so a record that does not parse reads as empty and each
 * reader filters the entries it understands.
 */

/** The entries of the JSON array in `annotations[key]`; none when it is absent, not JSON or not an array. */
export function annotationRecord(annotations: Readonly<Record<string, string>> | undefined, key: string): unknown[] {
  const text = annotations?.[key];
  if (text === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? (parsed as unknown[]) : [];
}
