package dev.svckms.client;

import java.util.Map;

/** One item of {@link SvcClient#encryptBatch}: the plaintext and its context (may be null). */
public record EncryptItem(byte[] plaintext, Map<String, String> context) {
}
