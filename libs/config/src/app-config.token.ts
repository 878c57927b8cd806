/** Injection token of the validated AppConfig (provided by the platform module; nothing reads process.env after start). */
export const APP_CONFIG = Symbol('APP_CONFIG');
