package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** A ciphertext moved to the destination key's {@code keyVersion}; {@code sourceKeyVersion} decrypted it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ReencryptResult(String ciphertextBase64, int keyVersion, int sourceKeyVersion) {
}
