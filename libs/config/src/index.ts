export { loadConfig, ConfigError, keyId, AppConfig, PipedreamConfig, LoadConfigOptions } from './config';
export { ConfigModule, APP_CONFIG } from './config.module';
