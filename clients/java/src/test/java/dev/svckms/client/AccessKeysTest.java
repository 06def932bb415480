package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** createAccessKey, listAccessKeys and deleteAccessKey against the role-based service of KeyModelTest. */
class AccessKeysTest {
    private static final SvcClient KMS = KeyModelTest.KMS;

    @Test
    void accessKeysAreCreatedListedWithoutSecretsAndDeleted() {
        String service = "java-" + UUID.randomUUID();
        NewAccessKey own = KMS.createAccessKey(null);
        assertTrue(own.accessKeyId().matches("AKSV[A-Z2-7]{16}"), own.accessKeyId());
        assertEquals(43, own.secretAccessKey().length());
        assertEquals("Human", own.principal().kind());
        assertFalse(own.toString().contains(own.secretAccessKey()), "toString never shows the secret");
        NewAccessKey first = KMS.createAccessKey(service);
        NewAccessKey second = KMS.createAccessKey(service);
        assertEquals(new AccessKeyPrincipal("Service", service), first.principal());

        AccessKeyPage page = KMS.listAccessKeys(service, null, 1);
        assertEquals(1, page.accessKeys().size());
        assertTrue(page.hasMore());
        List<String> ids = KMS.listAllAccessKeys(service).stream().map(AccessKey::accessKeyId).toList();
        assertEquals(List.of(first.accessKeyId(), second.accessKeyId()).stream().sorted().toList(), ids);
        AccessKey listed = KMS.listAllAccessKeys(service).get(0);
        assertEquals(service, listed.principal().subject());
        assertFalse(listed.createdBy().isEmpty());

        DeletedAccessKey deleted = KMS.deleteAccessKey(first.accessKeyId());
        assertTrue(deleted.deleted());
        assertEquals(List.of(second.accessKeyId()),
            KMS.listAllAccessKeys(service).stream().map(AccessKey::accessKeyId).toList());
        SvcApiException gone = assertThrows(SvcApiException.class, () -> KMS.deleteAccessKey(first.accessKeyId()));
        assertEquals(404, gone.status());
        assertEquals("NotFound", gone.code());
        SvcApiException refused = assertThrows(SvcApiException.class, () -> KeyModelTest.SERVICE.createAccessKey(null));
        assertEquals(403, refused.status(), "Human only");
        KMS.deleteAccessKey(second.accessKeyId());
        KMS.deleteAccessKey(own.accessKeyId());
    }
}
