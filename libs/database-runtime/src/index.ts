export { EmbeddedPostgres, DataDirLockedError } from './embedded-postgres';
export { migrate, readMigrations, findMigrationsDir, MigrationError, MigrationFile, MigrateResult } from './migrator';
