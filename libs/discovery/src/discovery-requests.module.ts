import { Module } from '@nestjs/common';
import { DiscoveryRequests } from './discovery-requests';

/** Asking for discoveries, for the API and the worker alike (the database and the queue producer are global). */
@Module({
  providers: [DiscoveryRequests],
  exports: [DiscoveryRequests],
})
export class DiscoveryRequestsModule {}
