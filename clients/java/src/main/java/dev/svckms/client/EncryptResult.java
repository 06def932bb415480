package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** An opaque envelope (base64) that names the key version; decrypt takes it back as it is. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record EncryptResult(String ciphertextBase64, int keyVersion, String algorithm) {
}
