/** UTF-8 text to standard base64 and back, as the API's *Base64 fields take them. */
export function textToBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes as UTF-8 text, or undefined when they are not valid UTF-8 (binary plaintext). */
export function base64ToText(b64: string): string | undefined {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
