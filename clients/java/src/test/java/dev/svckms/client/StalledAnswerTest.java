package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Against a proxy (SVC_TEST_FAULT_URL) that sends the headers and one byte of a GET's answer, then
 * nothing: a call's timeout covers the body, not only the headers, so a stalled answer ends in a
 * {@code Timeout} and a safe read is retried. test/clients/java-sdk.test.ts sets the proxy up.
 */
class StalledAnswerTest {
    private static final SvcClient KMS = SvcClient.builder()
            .baseUrl(System.getenv("SVC_TEST_FAULT_URL"))
            .bearerToken(System.getenv("SVC_TEST_TOKEN"))
            .timeout(Duration.ofMillis(500))
            .build();

    @Test
    void aBodyThatStallsOnceIsRetriedAndTheReadSucceeds() {
        String id = System.getenv("SVC_TEST_STALLED_ONCE_KEY");
        ManagedKey key = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> KMS.getKey(id), "the call must not hang");
        assertEquals(id, key.id());
    }

    @Test
    void aBodyThatAlwaysStallsEndsInATimeoutAfterTheRetries() {
        String id = System.getenv("SVC_TEST_STALLED_KEY");
        SvcApiException stalled = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(SvcApiException.class, () -> KMS.getKey(id)), "the call must not hang");
        assertEquals("Timeout", stalled.code());
        assertEquals(0, stalled.status());
    }
}
