import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { PreflightNode } from '../preflight.ts';

/** The listener's TLS settings (`http.tls.*`); empty file names mean plain HTTP. */
export interface TlsSettings {
  certFile: string;
  keyFile: string;
  clientCaFile: string;
  terminatedUpstream: boolean;
}

export const NO_TLS: TlsSettings = { certFile: '', keyFile: '', clientCaFile: '', terminatedUpstream: false };

/**
 * TLS 1.2 suites the listener offers: ECDHE key exchange (forward secret: a stolen certificate key does not
 * open recorded traffic) with an AEAD cipher (no CBC padding oracles). Node's default list also offers
 * RSA key exchange and CBC suites. TLS 1.3 suites are all forward-secret AEAD and stay as Node sets them.
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export function tlsEnabled(tls: TlsSettings | undefined): boolean {
  return Boolean(tls?.certFile || tls?.keyFile);
}

/**
 * What node:tls needs for the listener, read from the files now: TLS 1.2 or newer with forward-secret AEAD
 * suites only (`TLS12_CIPHERS`), and with a client
 * CA, a client certificate that chains to it on every connection (the handshake fails otherwise, before
 * any HTTP is read). Throws with the setting's name when a file cannot be read.
 */
export function listenerTlsOptions(
  tls: TlsSettings,
): SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean } {
  return {
    cert: readSetting('http.tls.certFile', tls.certFile),
    key: readSetting('http.tls.keyFile', tls.keyFile),
    ...(tls.clientCaFile ? { ca: readSetting('http.tls.clientCaFile', tls.clientCaFile) } : {}),
    minVersion: 'TLSv1.2',
    ciphers: TLS12_CIPHERS,
    honorCipherOrder: true,
    requestCert: Boolean(tls.clientCaFile),
    rejectUnauthorized: Boolean(tls.clientCaFile),
  };
}

function readSetting(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(
      `${setting}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/**
 * The `http.tls` preflight finding. Half a configuration (a certificate without its key, a client CA
 * without a certificate), a file that cannot be read or a key that does not match its certificate fail
 * the boot; plain HTTP on an exposed bind is a development-grade finding unless TLS ends upstream.
 */
export function tlsPreflight(tls: TlsSettings | undefined, exposed: boolean): PreflightNode {
  const name = 'http.tls';
  if (!tls || !tlsEnabled(tls)) {
    if (tls?.clientCaFile)
      return {
        name,
        status: 'fail',
        message: 'http.tls.clientCaFile is set without a certificate and key',
        advice: 'set SVC_HTTP_TLS_CERT_FILE and SVC_HTTP_TLS_KEY_FILE as well',
      };
    if (tls?.terminatedUpstream) return { name, status: 'ok', message: 'plain HTTP; TLS is terminated upstream' };
    return {
      name,
      status: exposed ? 'warn' : 'ok',
      devGrade: true,
      message: 'plain HTTP: plaintext, keys and tokens cross the network unencrypted',
      advice:
        'set SVC_HTTP_TLS_CERT_FILE and SVC_HTTP_TLS_KEY_FILE, or ' +
        'SVC_HTTP_TLS_TERMINATED_UPSTREAM=true when a proxy in front ends TLS',
    };
  }
  if (!tls.certFile || !tls.keyFile)
    return {
      name,
      status: 'fail',
      message: 'http.tls needs both certFile and keyFile',
      advice: 'set SVC_HTTP_TLS_CERT_FILE and SVC_HTTP_TLS_KEY_FILE together',
    };
  try {
    // Builds the context the listener will use: an unreadable file, bad PEM or a key that is not the
    // certificate's fails here, before anything is bound.
    createSecureContext(listenerTlsOptions(tls));
  } catch (err) {
    return {
      name,
      status: 'fail',
      message: (err as Error).message,
      advice: 'give PEM files: the certificate chain, its private key, and the client CA',
    };
  }
  return { name, status: 'ok', message: tls.clientCaFile ? 'HTTPS with client certificates (mutual TLS)' : 'HTTPS' };
}
