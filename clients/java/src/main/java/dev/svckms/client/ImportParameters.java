package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** What an import needs: a single-use token (24 hours, this caller only) and the RSA-3072 key to wrap the material with. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ImportParameters(String importToken, String wrappingPublicKeyPem, String wrappingAlgorithm, String expiresAt) {
    @Override
    public String toString() {
        return "ImportParameters[wrappingAlgorithm=" + wrappingAlgorithm + ", expiresAt=" + expiresAt + "]";
    }
}
