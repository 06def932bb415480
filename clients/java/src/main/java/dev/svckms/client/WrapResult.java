package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** A data key wrapped with AES key wrap (RFC 3394), base64, naming the key version. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record WrapResult(String wrappedDekBase64, int keyVersion, String algorithm) {
}
