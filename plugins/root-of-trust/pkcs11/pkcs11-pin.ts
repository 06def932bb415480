import { readFile, stat } from 'node:fs/promises';
import type { Logger } from '../../../kernel/index.ts';
import { Pkcs11SetupError } from './pkcs11-errors.ts';

/** The PIN from its file: one line; the file's name is in errors, never its content. */
export async function readPinFile(file: string, logger: Pick<Logger, 'warn'>): Promise<string> {
  let text: string;
  try {
    const mode = (await stat(file)).mode & 0o777;
    // Not narrowed here: the file is the operator's (often a read-only secret mount), but they should know.
    if (mode & 0o077)
      logger.warn(
        `the PIN file ${file} is open to other users (mode 0${mode.toString(8)}): make it readable by this service's user only (0400)`,
      );
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Pkcs11SetupError(
      `crypto.pkcs11.pinFile (SVC_CRYPTO_PKCS11_PIN_FILE): ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const pin = text.replace(/\r?\n$/, '');
  if (!pin || pin.includes('\n'))
    throw new Pkcs11SetupError(
      `crypto.pkcs11.pinFile (SVC_CRYPTO_PKCS11_PIN_FILE): ${file} must hold the PIN on one line`,
    );
  return pin;
}
