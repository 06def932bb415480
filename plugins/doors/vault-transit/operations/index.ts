import type { VaultRoute } from '../vault-route.ts';
import { encryptionRoutes } from './encryption.ts';
import { exportRoutes } from './export.ts';
import { keyRoutes } from './keys.ts';
import { signingRoutes } from './signing.ts';

/** Every transit path the door answers. */
export const TRANSIT_ROUTES: VaultRoute[] = [...keyRoutes, ...encryptionRoutes, ...signingRoutes, ...exportRoutes];
