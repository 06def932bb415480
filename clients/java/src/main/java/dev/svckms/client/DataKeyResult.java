package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A fresh data key for envelope encryption: {@code plaintextBase64} is the key itself (null when it was
 * asked without plaintext), {@code ciphertextBase64} the same key encrypted under the managed key, which
 * {@link SvcClient#decrypt} opens with the same context.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DataKeyResult(String ciphertextBase64, String plaintextBase64, int keyVersion, String algorithm) {
}
