import { InProcessContext, InProcessServers } from '@app/mcp';
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRegistryMcpServer, REGISTRY_SERVER_NAME, REGISTRY_SERVER_TITLE } from './registry-mcp-server';
import { RegistryTools } from './registry-tools';

/** Where a process that answers the registry's tools provides its RegistryTools (the API does; a worker does not). */
export const REGISTRY_TOOLS = Symbol('REGISTRY_TOOLS');

let version: string | undefined;

/** The product's version, from the package.json of the deployment (found by walking up from this file). */
export function registryVersion(): string {
  if (version) return version;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mcp-registry' && pkg.version) return (version = pkg.version);
    }
    if (dirname(dir) === dir) return (version = '0.0.0');
  }
}

/**
 * Registers the registry's own MCP server as an in-process server, so that it is the INTERNAL server
 * registered at start and discovered like any other. Its tools answer through the RegistryTools of this
 * process when there are some (the API); in a worker-only process the server can be listed, not used.
 */
@Injectable()
export class RegistryServerRegistration implements OnModuleInit {
  private tools?: RegistryTools | null;

  constructor(
    private readonly inProcess: InProcessServers,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    if (this.inProcess.has(REGISTRY_SERVER_NAME)) return;
    this.inProcess.register(REGISTRY_SERVER_NAME, {
      title: REGISTRY_SERVER_TITLE,
      description: 'Search, inspect and call the tools of every MCP server registered here',
      create: (context?: InProcessContext) => createRegistryMcpServer(this.registryTools(), context?.principal, registryVersion()),
    });
  }

  private registryTools(): RegistryTools | undefined {
    if (this.tools === undefined) {
      try {
        this.tools = this.moduleRef.get<RegistryTools>(REGISTRY_TOOLS, { strict: false });
      } catch {
        this.tools = null;
      }
    }
    return this.tools ?? undefined;
  }
}

/** Import it in every process that may connect to the registry's INTERNAL server (the API and the worker). */
@Module({ providers: [RegistryServerRegistration] })
export class RegistryServerModule {}
