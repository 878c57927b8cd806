-- CreateIndex
CREATE INDEX "servers_created_at_id_idx" ON "servers"("created_at", "id");
