-- kgbench rdb test database (hand-made, no Spider data; tests/test_rdb_convert.py builds
-- rdb_handmade.sqlite from this file). Each table exercises one rule of spec
-- spider4sparql.md §3 for `kgbench rdb`.

-- Typed columns, NULLs, a column called exactly `name`, a non-identifier and a
-- loader-owned column name, values that do not fit their declared type (SQLite is
-- dynamically typed), text needing N-Triples escapes, and numeric text: `zip` (codes with
-- leading zeros, never promoted), `rank` (integers) and `fee` (decimals).
CREATE TABLE "person" (
  "id" INTEGER PRIMARY KEY,
  "name" TEXT,
  "height" REAL,
  "score" NUMERIC,
  "active" BOOL,
  "born" DATE,
  "seen" DATETIME,
  "zip" VARCHAR(5),
  "rank" VARCHAR(3),
  "fee" TEXT,
  "Home Town" TEXT,
  "description" TEXT,
  "misc"
);
INSERT INTO "person" VALUES
  (1, 'Ann', 1.75, 12.5, 'T', '1990-01-02', '2020-03-04 05:06:07', '01234', '3', '1.5', 'Creole English',
   'says "hi"' || char(10) || 'back\slash', 'x'),
  (2, NULL, NULL, 7, 'F', NULL, NULL, '12345', '10', '2', NULL, NULL, 5),
  (3, 'Cé', 'tall', 1e-7, 1, '1990-1-2', '2020-03-04', NULL, NULL, '0.25', 'Ayr', 'tab' || char(9) || 'é', 2.5),
  (4, 'Dan', 2.0, NULL, 'St. Mirren Park', '2000-02-29', '2001-01-01T00:00:00', '00042', '-2', NULL, NULL,
   NULL, NULL);

-- A table without a primary key: two identical rows (a bag keeps both, s4s merges them),
-- a NULL, and a row that Spider4SPARQL's blank-node labels (NULL read as 0) merge with the
-- NULL row. Its foreign key to person is declared in the database only.
CREATE TABLE "visit" (
  "person_id" INTEGER REFERENCES "person" ("id"),
  "place" TEXT
);
INSERT INTO "visit" VALUES
  (1, 'Paris'),
  (1, 'Paris'),
  (NULL, 'Rome'),
  (0, 'Rome'),
  (3, 'Oslo');

-- A composite key declared in a different order than the columns, and a mistyped foreign
-- key (TEXT referencing INTEGER, like concert.Stadium_ID) with a dangling value ('9').
CREATE TABLE "membership" (
  "person_id" TEXT,
  "club" TEXT,
  "since" INTEGER,
  PRIMARY KEY ("club", "person_id"),
  FOREIGN KEY ("person_id") REFERENCES "person" ("id")
);
INSERT INTO "membership" VALUES
  ('1', 'chess', 2001),
  ('2', 'chess', NULL),
  ('1', 'go', 2003),
  ('9', 'go', 2004);

-- Padded codes as in flight_2 (' APG'): they match only when trimmed. airports.city is not
-- unique, so the foreign key from trip.city has two targets for 'Aberdeen'.
CREATE TABLE "airports" (
  "code" TEXT PRIMARY KEY,
  "city" TEXT
);
INSERT INTO "airports" VALUES ('APG', 'Aberdeen'), ('ABZ', 'Aberdeen'), ('OSL', 'Oslo');

CREATE TABLE "flights" (
  "fno" INTEGER PRIMARY KEY,
  "src" TEXT REFERENCES "airports" ("code")
);
INSERT INTO "flights" VALUES (1, ' APG'), (2, 'ABZ'), (3, 'APG '), (4, 'XXX');

CREATE TABLE "trip" (
  "tid" INTEGER PRIMARY KEY,
  "city" TEXT REFERENCES "airports" ("city")
);
INSERT INTO "trip" VALUES (1, 'Aberdeen'), (2, 'Oslo'), (3, 'Paris');
