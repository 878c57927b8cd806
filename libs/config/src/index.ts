export {
  loadConfig,
  ConfigError,
  keyId,
  AppConfig,
  PipedreamConfig,
  LoadConfigOptions,
  TenantLimits,
  TENANT_LIMIT_VARIABLES,
  DEFAULT_TENANT_LIMITS,
  WebhookSettings,
} from './config';
export { ConfigModule, APP_CONFIG } from './config.module';
export { CREDENTIAL_ENV_PREFIX, credentialEnvRefusal, isPlatformVariable } from './credential-env';
