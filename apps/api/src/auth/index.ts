export { AuthModule } from './auth.module';
export { AuthService } from './auth.service';
export { ApiKeyGuard, requiresKey } from './api-key.guard';
export { CurrentPrincipal, AdminOnly, Public, assertAdmin, AuthenticatedRequest } from './auth.decorators';
export { generateApiKey, hashApiKey, keyPrefix, TENANT_KEY_PREFIX } from './api-key.secret';
