-- AlterTable
ALTER TABLE "servers" ADD COLUMN     "discovery_lease_owner" TEXT,
ADD COLUMN     "discovery_lease_until" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "servers_discovery_lease_until_idx" ON "servers"("discovery_lease_until");
