package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** getPolicy and putPolicy against the role-based service of KeyModelTest; each change only adds a binding. */
class PolicyTest {
    private static final SvcClient KMS = KeyModelTest.KMS;

    @Test
    void policyIsReplacedWithItsEtagAndAStaleOneIsRefused() throws InterruptedException {
        Policy before = KMS.getPolicy();
        assertTrue(before.etag().startsWith("\"" + before.version() + "-"), before.etag());
        assertTrue(before.roleBindings().containsKey("admins"));

        PolicyDocument readers = before.document().withRoleBinding("java-readers", List.of("Get"));
        Policy after = KMS.putPolicy(readers, before.etag());
        assertEquals(before.version() + 1, after.version());
        assertNotEquals(before.etag(), after.etag());
        assertEquals(List.of("Get"), after.roleBindings().get("java-readers"));
        assertEquals(after, KMS.getPolicy());

        SvcApiException stale = assertThrows(SvcApiException.class, () -> KMS.putPolicy(readers, before.etag()));
        assertEquals(412, stale.status());
        assertEquals("PreconditionFailed", stale.code());
        PolicyDocument bad = after.document().withSubjectBinding("carol", List.of("Fly"));
        SvcApiException invalid = assertThrows(SvcApiException.class, () -> KMS.putPolicy(bad, after.etag()));
        assertEquals("InvalidField", invalid.code());
        assertTrue(invalid.getMessage().contains("unknown operation \"Fly\""), invalid.getMessage());
        SvcClient deployer = KeyModelTest.SERVICE;
        SvcApiException service = assertThrows(SvcApiException.class, () -> deployer.putPolicy(readers, after.etag()));
        assertEquals(403, service.status(), "Human only");

        // No history endpoint: each version is one audit record of Administer on the resource policy,
        // written through the audit pipeline, so it is waited for.
        assertTrue(audited(after.version()), "the new version is in the audit trail");
    }

    private static boolean audited(int version) throws InterruptedException {
        AuditQuery query = AuditQuery.all().withKey("policy").withOperation("Administer");
        String wanted = String.valueOf(version);
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            List<AuditRecord> records = KMS.queryAudit(query).records();
            if (records.stream().anyMatch(r -> wanted.equals(r.context().get("policy.version")))) return true;
            Thread.sleep(50);
        }
        return false;
    }
}
