package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * One item's answer in a batch encrypt: the ciphertext, or, for an item that failed, the {@code error}
 * code and {@code message} the single call would have answered (the other fields null).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record EncryptBatchResult(String ciphertextBase64, Integer keyVersion, String algorithm, String error, String message) {
    public boolean failed() {
        return error != null;
    }
}
