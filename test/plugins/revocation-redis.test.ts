import t from 'tap';
import { revocationContract } from '../../contracts/revocation.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { RedisRevocationList } from '../../plugins/revocation/redis/redis-revocation.ts';
import { privateRedis } from '../helpers/private-redis.ts';

const redis = await privateRedis(t);
if (redis) {
  const open = async () => {
    const list = new RedisRevocationList(
      redis.url,
      'svc:contract:',
      systemClock,
      createStderrLogger('error', () => {}),
    );
    await list.start();
    return list;
  };
  revocationContract(t, open, { shared: open });
}
