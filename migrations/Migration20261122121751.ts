import { Migration } from '@mikro-orm/migrations';

export class Migration20261122121751 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "orders" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "order_number" varchar(255) not null, "status" text check ("status" in ('draft', 'pending', 'confirmed', 'shipped', 'delivered', 'cancelled')) not null, "order_date" varchar(10) not null, "supplier_name" varchar(255) null, "customer_name" varchar(255) null, "account_id" varchar(255) null, "store_id" varchar(255) null, "expected_delivery_date" varchar(10) null, "actual_delivery_date" timestamptz null, "currency" varchar(3) not null, "tax_label" varchar(255) null, "tax_rate" numeric(5,2) not null, "subtotal" numeric(14,2) not null, "tax" numeric(14,2) not null, "total" numeric(14,2) not null, "notes" text null, "source_type" text check ("source_type" in ('manual', 'analysis', 'alert')) not null, constraint "orders_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "orders_org_id_index" on "orders" ("organisation_id", "id");`);
    this.addSql(
      `alter table "orders" add constraint "orders_org_number_unique" unique ("organisation_id", "order_number");`,
    );

    this.addSql(
      `create table "order_counters" ("organisation_id" varchar(255) not null, "last_number" int not null, constraint "order_counters_pkey" primary key ("organisation_id"));`,
    );

    this.addSql(
      `create table "order_lines" ("id" varchar(255) not null, "order_id" varchar(255) not null, "position" int not null, "sku" varchar(255) null, "name" varchar(255) null, "quantity" numeric(12,3) not null, "expectation_id" varchar(255) null, "unit_price" numeric(14,2) not null, "tax_percent" numeric(5,2) not null, "tax_amount" numeric(14,2) not null, "total_price" numeric(14,2) not null, constraint "order_lines_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "order_lines_order_id_index" on "order_lines" ("order_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "orders" cascade;`);

    this.addSql(`drop table if exists "order_counters" cascade;`);

    this.addSql(`drop table if exists "order_lines" cascade;`);
  }
}
