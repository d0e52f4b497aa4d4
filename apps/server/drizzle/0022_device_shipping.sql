CREATE TABLE "device_shipments" (
	"id" serial PRIMARY KEY NOT NULL,
	"customer_uid" integer NOT NULL,
	"customer_name" text NOT NULL,
	"created_by" integer,
	"created_by_name" text DEFAULT '' NOT NULL,
	"count" integer NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"createdat" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_shipment_items" (
	"shipment_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"sn" text NOT NULL,
	CONSTRAINT "device_shipment_items_shipment_id_device_id_pk" PRIMARY KEY("shipment_id","device_id")
);
--> statement-breakpoint
ALTER TABLE "device_shipment_items" ADD CONSTRAINT "device_shipment_items_shipment_id_device_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."device_shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_shipment_items" ADD CONSTRAINT "device_shipment_items_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_shipments_customer_idx" ON "device_shipments" USING btree ("customer_uid","id");--> statement-breakpoint
CREATE INDEX "device_shipment_items_device_idx" ON "device_shipment_items" USING btree ("device_id");
