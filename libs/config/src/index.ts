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
export { APP_CONFIG } from './app-config.token';
export { CREDENTIAL_ENV_PREFIX, credentialEnvRefusal, isPlatformVariable } from './credential-env';
