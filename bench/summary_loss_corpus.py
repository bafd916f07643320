"""The loss-report benchmark's corpus: conversations with planted facts, and summaries that
drop some of them and keep the others in other words.

Each case is a conversation (user and assistant turns alternate, the first turn is message
1), the facts planted in it (`Planted`: the detail as written, its kind, the turn), and a
summary written the way a summarizer writes: it rewords what it keeps (numbers in words or
with a suffix, a date in another form, a surname for a full name, a decision turned around)
and leaves things out. `dropped` names the planted facts the summary lost.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Planted:
    """A fact planted in turn `turn` (0-based): `text` is how the report should name it."""

    text: str
    kind: str
    turn: int


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    turns: tuple[str, ...]
    planted: tuple[Planted, ...]
    summary: str
    dropped: frozenset[str]


CASES: tuple[Case, ...] = (
    Case(
        name="deploying a web service",
        turns=(
            "We need to move the invoicing service off the old VM before the end of the "
            "quarter. It currently listens on port 8443 and the config lives in "
            "/srv/invoicing/config.yaml.",
            "Understood. The simplest path is a container: build an image from the existing "
            "repo, push it to your registry and run it behind the same load balancer. Do you "
            "already have a registry?",
            "Yes, registry.internal.acme.io. Priya Raman owns it, ask her for push rights.",
            "Then the build is `docker build -t registry.internal.acme.io/invoicing:1.4.2 .` "
            "followed by a push. I would keep the image tag equal to the release number.",
            "Agreed. We decided to run it on the Kubernetes cluster rather than on ECS, since "
            "the rest of finance is already there.",
            "Good choice. Start with 3 replicas and a memory limit of 512 MiB; the old VM never "
            "went above 300 MB. The readiness probe can call /healthz.",
            "The cutover window is Saturday 2024-06-15 from 06:00 to 08:00 UTC. Nobody may "
            "deploy to production outside that window.",
            "Noted. I will prepare the manifests so the cutover is a single "
            "`kubectl apply -f deploy/invoicing.yaml`.",
        ),
        planted=(
            Planted("8443", "number", 0),
            Planted("/srv/invoicing/config.yaml", "path", 0),
            Planted("Priya Raman", "name", 2),
            Planted("docker build -t registry.internal.acme.io/invoicing:1.4.2 .", "command", 3),
            Planted("We decided to run it on the Kubernetes cluster", "decision", 4),
            Planted("512", "number", 5),
            Planted("2024-06-15", "date", 6),
            Planted("Nobody may deploy to production outside that window.", "constraint", 6),
            Planted("kubectl apply -f deploy/invoicing.yaml", "command", 7),
        ),
        summary=(
            "The invoicing service (port 8443) moves from its VM to a container on the "
            "Kubernetes cluster, chosen over ECS because the rest of finance runs there. "
            "Raman manages the registry. It starts with three replicas. Cutover: June 15, "
            "6:00-8:00 UTC, applied with kubectl apply -f deploy/invoicing.yaml."
        ),
        dropped=frozenset(
            {
                "/srv/invoicing/config.yaml",
                "docker build -t registry.internal.acme.io/invoicing:1.4.2 .",
                "512",
                "Nobody may deploy to production outside that window.",
            }
        ),
    ),
    Case(
        name="planning a trip",
        turns=(
            "I'm planning a trip to Lisbon with my sister Ana for the first week of October. "
            "Our budget is €1,800 for both of us, flights included.",
            "Lisbon in early October is lovely, still warm. Flights from Berlin run around "
            "€150 return per person if you book early. Where are you flying from?",
            "From Berlin, yes. We found a TAP flight on October 3rd at 07:40, returning "
            "October 9th.",
            "That leaves about €1,500 for six nights of lodging, food and trips. An apartment "
            "in Alfama or Graça would be around €110 a night.",
            "Ana can't walk long distances after her knee surgery, so we must avoid anything "
            "with steep hills on foot.",
            "Then Alfama is a poor fit; it is all stairs. Stay in Baixa or near Avenida da "
            "Liberdade, and use tram 28 or taxis for the hills.",
            "Let's go with Baixa. Can you also add a day trip to Sintra?",
            "Yes. Trains leave Rossio station every 20 minutes; the ride is 40 minutes. Book "
            "Pena Palace tickets online at https://www.parquesdesintra.pt for a morning slot.",
        ),
        planted=(
            Planted("Lisbon", "name", 0),
            Planted("€1,800", "number", 0),
            Planted("October 3rd", "date", 2),
            Planted("07:40", "date", 2),
            Planted("€110", "number", 3),
            Planted("we must avoid anything with steep hills on foot", "constraint", 4),
            Planted("Let's go with Baixa", "decision", 6),
            Planted("https://www.parquesdesintra.pt", "url", 7),
            Planted("40", "number", 7),
        ),
        summary=(
            "Trip to Lisbon for two (the user and her sister Ana), 3-9 October, flying TAP "
            "from Berlin; total budget 1.8k euros. Ana had knee surgery, so steep hills on "
            "foot are to be avoided: they will stay in Baixa rather than Alfama and use tram "
            "28 or taxis. A day trip to Sintra by train from Rossio is planned."
        ),
        dropped=frozenset({"07:40", "€110", "https://www.parquesdesintra.pt", "40"}),
    ),
    Case(
        name="a Python refactor",
        turns=(
            "Our report generator is slow. The hot function is build_rows() in "
            "reports/tabular.py; it takes 14 seconds for the March export.",
            "Looking at it: build_rows calls fetch_customer for every row, so it queries the "
            "database 48,000 times. Batch the lookups instead.",
            "Makes sense. The customers table has about 120k rows, is loading all of them OK?",
            "Yes, 120,000 small rows fit in memory easily. Load them once into a dict keyed by "
            "customer_id and pass it in.",
            "Done, it's now 1.9 seconds. We decided to keep the old function behind the "
            "REPORTS_LEGACY_ROWS flag until the April release.",
            "Sensible. Add a test that compares both paths on the fixture in "
            "tests/fixtures/march_export.csv so they cannot drift.",
            "The code must stay compatible with Python 3.9 because the finance box runs CentOS 7.",
            "Then avoid match statements and the | union syntax in annotations; use "
            "Optional[...] and run `pytest -k tabular` before merging.",
        ),
        planted=(
            Planted("build_rows()", "identifier", 0),
            Planted("reports/tabular.py", "path", 0),
            Planted("14 seconds", "number", 0),
            Planted("48,000", "number", 1),
            Planted("customer_id", "identifier", 3),
            Planted("REPORTS_LEGACY_ROWS", "identifier", 4),
            Planted("tests/fixtures/march_export.csv", "path", 5),
            Planted("The code must stay compatible with Python 3.9", "constraint", 6),
            Planted("pytest -k tabular", "command", 7),
        ),
        summary=(
            "build_rows() in reports/tabular.py was slow (14 s) because it looked up each "
            "customer separately, 48k queries. Customers are now loaded once into a dict by "
            "customer_id and the export takes under two seconds. The old path stays behind a "
            "legacy flag until April. Everything has to keep working on Python 3.9 (CentOS 7)."
        ),
        dropped=frozenset(
            {"REPORTS_LEGACY_ROWS", "tests/fixtures/march_export.csv", "pytest -k tabular"}
        ),
    ),
    Case(
        name="a home renovation",
        turns=(
            "We're redoing the kitchen. The contractor, Tomasz Nowak, quoted $23,400 "
            "including cabinets but not appliances.",
            "That's in the normal range for a mid-size kitchen. Does the quote include "
            "electrical work? Moving outlets often adds 10-15%.",
            "It includes two new circuits. Work starts on May 6 and should take 5 weeks.",
            "Five weeks is realistic if the cabinets are in stock. Ask him for the lead time "
            "in writing.",
            "He says 3 weeks lead time. Also, we decided to keep the existing floor instead "
            "of tiling, to save about $2,000.",
            "Keeping the floor is fine as long as the cabinet bases are leveled. Protect it "
            "during the work.",
            "The building rules say no noisy work before 9am or on Sundays.",
            "Write that into the contract so the schedule accounts for it.",
        ),
        planted=(
            Planted("Tomasz Nowak", "name", 0),
            Planted("$23,400", "number", 0),
            Planted("May 6", "date", 2),
            Planted("we decided to keep the existing floor instead of tiling", "decision", 4),
            Planted("$2,000", "number", 4),
            Planted("no noisy work before 9am or on Sundays", "constraint", 6),
            Planted("9am", "date", 6),
        ),
        summary=(
            "Kitchen renovation by contractor Nowak for 23.4k dollars (cabinets included, "
            "appliances not, two new circuits included), starting 6 May for five weeks. The "
            "existing floor stays rather than being tiled. Building rules: no noisy work "
            "before 9 am and none on Sundays."
        ),
        dropped=frozenset({"$2,000"}),
    ),
    Case(
        name="a database migration",
        turns=(
            "We're migrating the orders database from MySQL 5.7 to PostgreSQL 16. The "
            "dataset is about 340 GB.",
            "At that size use pgloader for the bulk copy and logical replication for the "
            "catch-up. Expect the initial load to take several hours.",
            "The DBA, Kenji Watanabe, wants the migration done over the Easter weekend, "
            "March 29 to April 1.",
            "That works. Freeze schema changes from March 22 so the target stays in sync.",
            "OK. We decided to drop the legacy order_archive_2015 table instead of migrating it.",
            "Good, export it to cold storage first: "
            "`mysqldump orders order_archive_2015 > /backups/order_archive_2015.sql`.",
            "The application must never write to both databases at the same time.",
            "Then cut over with a maintenance page and switch DATABASE_URL in one deploy.",
        ),
        planted=(
            Planted("340 GB", "number", 0),
            Planted("Kenji Watanabe", "name", 2),
            Planted("March 29", "date", 2),
            Planted("March 22", "date", 3),
            Planted("order_archive_2015", "identifier", 4),
            Planted("/backups/order_archive_2015.sql", "path", 5),
            Planted("The application must never write to both databases", "constraint", 6),
            Planted("DATABASE_URL", "identifier", 7),
        ),
        summary=(
            "Orders move from MySQL 5.7 to Postgres 16 (about 340 GB) with pgloader and "
            "logical replication, over Easter (29 March - 1 April) as the DBA Watanabe "
            "asked. The legacy order_archive_2015 table is dumped to cold storage and not "
            "migrated. Rule: the app never writes to both databases at once; cutover behind "
            "a maintenance page."
        ),
        dropped=frozenset({"March 22", "/backups/order_archive_2015.sql", "DATABASE_URL"}),
    ),
    Case(
        name="hiring an engineer",
        turns=(
            "We're hiring a senior backend engineer. The salary band is 95,000 to 110,000 "
            "euros and the role is remote within the EU.",
            "That band is competitive for most EU countries outside Switzerland. How many "
            "interview rounds do you plan?",
            "Four: a screen with Lena Fischer, a take-home, a system design round, and a "
            "team chat.",
            "Keep the take-home under three hours and say so in the brief; candidates drop "
            "out of longer ones.",
            "Good point. We decided to pay candidates €200 for the take-home.",
            "That is generous and signals respect. Put the brief in a public repo like "
            "github.com/acme/backend-take-home so it is easy to share.",
            "Applications close on 2024-09-30. We can't sponsor visas this year.",
            "Mention the visa limit in the posting to avoid disappointing applicants.",
        ),
        planted=(
            Planted("95,000", "number", 0),
            Planted("Lena Fischer", "name", 2),
            Planted("We decided to pay candidates €200 for the take-home", "decision", 4),
            Planted("€200", "number", 4),
            Planted("github.com/acme/backend-take-home", "path", 5),
            Planted("2024-09-30", "date", 6),
        ),
        summary=(
            "Hiring a remote senior backend engineer in the EU, salary 95k-110k euros. Four "
            "rounds: screen with Fischer, a paid take-home (200 euros, under three hours), "
            "system design, team chat. Applications close 30 September 2024; no visa "
            "sponsorship this year."
        ),
        dropped=frozenset({"github.com/acme/backend-take-home"}),
    ),
    Case(
        name="scaling a recipe",
        turns=(
            "I want to make my grandmother's plum cake for 24 people. The recipe serves 8 "
            "and uses 350 g of flour and 4 eggs.",
            "Triple everything: 1,050 g of flour and 12 eggs. Bake it in two or three trays "
            "rather than one deep one.",
            "The oven fits two trays of 30 by 40 cm. It bakes at 180°C for 45 minutes.",
            "Two trays of that size hold the tripled batter. Bake at 175 degrees for about "
            "50 minutes since they are fuller; test with a skewer.",
            "Some guests are vegan, so we decided to make one tray with flax eggs instead.",
            "Use one tablespoon of ground flax and three of water per egg; 6 flax eggs for "
            "that tray.",
            "Never use almond flour, one guest has a nut allergy.",
            "Good that you mention it. Check the baking powder label too.",
        ),
        planted=(
            Planted("350 g", "number", 0),
            Planted("1,050 g", "number", 1),
            Planted("30 by 40 cm", "number", 2),
            Planted("45 minutes", "number", 2),
            Planted("we decided to make one tray with flax eggs instead", "decision", 4),
            Planted("Never use almond flour", "constraint", 6),
        ),
        summary=(
            "Plum cake for 24, tripled from a recipe for 8: 1050 g flour and 12 eggs, in two "
            "trays, at 175 degrees for about fifty minutes. One tray is vegan with flax eggs "
            "(six of them). No almond flour: a guest is allergic to nuts."
        ),
        dropped=frozenset({"350 g", "30 by 40 cm", "45 minutes"}),
    ),
    Case(
        name="a marketing campaign",
        turns=(
            "We're launching the spring campaign for Northwind Coffee on April 8. The ad "
            "budget is $45,000 across Instagram and podcasts.",
            "Split it 60/40 toward Instagram at first and move money weekly toward whatever "
            "converts. What is the target?",
            "2,500 new subscriptions at a cost per acquisition under $18.",
            "That is achievable with a strong offer. A first bag at half price usually works.",
            "We'll use the code SPRING24 for the half-price offer. Marco Bellini from the "
            "agency will run the podcast buys.",
            "Track the code per channel, for example SPRING24-IG and SPRING24-POD, so you can "
            "compare them.",
            "Legal says the ads must not claim the coffee is organic, the certification is "
            "still pending.",
            "Understood; stick to 'single origin' and 'roasted weekly'.",
        ),
        planted=(
            Planted("April 8", "date", 0),
            Planted("$45,000", "number", 0),
            Planted("2,500", "number", 2),
            Planted("$18", "number", 2),
            Planted("SPRING24", "name", 4),
            Planted("Marco Bellini", "name", 4),
            Planted("the ads must not claim the coffee is organic", "constraint", 6),
        ),
        summary=(
            "Northwind Coffee's spring campaign starts 8 April with a 45k dollar budget, "
            "weighted toward Instagram over podcasts at first. Goal: 2.5k subscriptions. The "
            "offer is a half-price first bag with a code per channel; the agency runs the "
            "podcast buys. The ads may not say the coffee is organic (certification pending)."
        ),
        dropped=frozenset({"$18", "SPRING24", "Marco Bellini"}),
    ),
    Case(
        name="a flaky CI pipeline",
        turns=(
            "Our CI fails about one run in five on test_upload_resumes in "
            "tests/test_storage.py. It passes locally.",
            "Timing-dependent tests often fail on shared runners. Does it use a fixed sleep?",
            "It sleeps 0.5 seconds waiting for the upload thread. The runner is "
            "ubuntu-22.04 with 2 cores.",
            "Replace the sleep with waiting on an Event that the upload thread sets; then the "
            "test no longer depends on the runner's speed.",
            "Done. We also decided to set PYTHONHASHSEED=0 in the workflow, one failure "
            "looked order-dependent.",
            "Reasonable. Re-run it 50 times with `pytest --count 50 tests/test_storage.py` "
            "using pytest-repeat before you trust it.",
            "All 50 passed. The workflow file is .github/workflows/ci.yml.",
            "Great. Keep the repeat job out of the default workflow; run it by hand when "
            "something looks flaky.",
        ),
        planted=(
            Planted("test_upload_resumes", "identifier", 0),
            Planted("tests/test_storage.py", "path", 0),
            Planted("0.5 seconds", "number", 2),
            Planted("ubuntu-22.04", "name", 2),
            Planted("PYTHONHASHSEED", "identifier", 4),
            Planted("pytest --count 50 tests/test_storage.py", "command", 5),
            Planted(".github/workflows/ci.yml", "path", 6),
        ),
        summary=(
            "test_upload_resumes in tests/test_storage.py failed in CI one run in five: it "
            "slept half a second waiting for the upload thread. It now waits on an Event. "
            "PYTHONHASHSEED is fixed to zero in the workflow. Fifty repeated runs passed; the "
            "repeat job stays out of the default workflow."
        ),
        dropped=frozenset(
            {"ubuntu-22.04", "pytest --count 50 tests/test_storage.py", ".github/workflows/ci.yml"}
        ),
    ),
    Case(
        name="a lease agreement",
        turns=(
            "I'm reviewing a commercial lease for our office at 14 Harbour Street. The rent "
            "is £3,200 a month for 36 months.",
            "Check the break clause, the rent review and who pays for repairs. Is there a deposit?",
            "A deposit of three months' rent. The landlord is Kestrel Properties Ltd and the "
            "lease starts on 1 September 2024.",
            "Three months is usual for a new tenant. Ask for a break clause at month 18.",
            "They agreed to a break at month 18 with six months' notice.",
            "Good. Note that the rent review is upward-only; try to cap it at 3% a year.",
            "We must not sign before our solicitor, Hannah Price, has read the repair clause.",
            "Wise. Send her the draft at hannah.price@pricelaw.co.uk with the schedule of "
            "condition.",
        ),
        planted=(
            Planted("Harbour Street", "name", 0),
            Planted("£3,200", "number", 0),
            Planted("Kestrel Properties", "name", 2),
            Planted("1 September 2024", "date", 2),
            Planted("They agreed to a break at month 18", "decision", 4),
            Planted("3%", "number", 5),
            Planted("We must not sign before our solicitor", "constraint", 6),
            Planted("Hannah Price", "name", 6),
        ),
        summary=(
            "Lease review for the office on Harbour Street: 3.2k pounds a month over three "
            "years, deposit of three months' rent, landlord Kestrel Properties, starting "
            "01/09/2024. A break at month 18 with six months' notice was agreed. The rent "
            "review is upward-only. Nothing is signed until the solicitor has read the "
            "repair clause."
        ),
        dropped=frozenset({"3%", "Hannah Price"}),
    ),
    Case(
        name="a research paper",
        turns=(
            "I'm writing up our study for the CHI 2025 deadline on September 12. We had 42 "
            "participants in the main experiment.",
            "With 42 participants, a within-subjects design gives you decent power. What was "
            "the main effect?",
            "Task time dropped from 84 seconds to 61 seconds with the new layout, p = 0.003.",
            "That is a strong result. Report the effect size too; with those numbers it is large.",
            "Our advisor, Dr. Elena Sokolova, wants the related work cut to one page. We "
            "decided to move the pilot study to the appendix.",
            "Sensible. Keep the pilot's headline number in the main text in one sentence.",
            "The paper must not exceed 10 pages excluding references.",
            "Then trim the method section first; it is usually where space hides. Compile with "
            "`latexmk -pdf main.tex` to check the page count.",
        ),
        planted=(
            Planted("September 12", "date", 0),
            Planted("42", "number", 0),
            Planted("84 seconds", "number", 2),
            Planted("0.003", "number", 2),
            Planted("Elena Sokolova", "name", 4),
            Planted("We decided to move the pilot study to the appendix", "decision", 4),
            Planted("The paper must not exceed 10 pages", "constraint", 6),
            Planted("latexmk -pdf main.tex", "command", 7),
        ),
        summary=(
            "CHI 2025 paper due 12 Sep. Main study: forty-two participants; the new layout "
            "cut task time to 61 seconds (p = 0.003). Advisor Sokolova wants related work on "
            "one page, and the pilot study goes to an appendix. Limit: ten pages without "
            "references."
        ),
        dropped=frozenset({"84 seconds", "latexmk -pdf main.tex"}),
    ),
    Case(
        name="a network outage",
        turns=(
            "The VPN went down at 14:20 today for everyone in the Madrid office. Users see "
            "'TLS handshake timeout'.",
            "Check whether the certificate on the gateway expired. What does "
            "`openssl s_client -connect vpn.example.org:443` show?",
            "The certificate expired yesterday. It was issued by Let's Encrypt.",
            "Renew it with `certbot renew --cert-name vpn.example.org` and reload the "
            "gateway. Then check why auto-renewal failed.",
            "Renewed. Auto-renewal failed because the cron job ran as the wrong user. The "
            "fix is in /etc/cron.d/certbot.",
            "Good. Add an alert that fires 14 days before any certificate expires.",
            "We decided to move the alerts to Grafana instead of the old Nagios setup.",
            "Fine. Point the alert at the on-call rotation, not a single person.",
        ),
        planted=(
            Planted("14:20", "date", 0),
            Planted("Madrid", "name", 0),
            Planted("openssl s_client -connect vpn.example.org:443", "command", 1),
            Planted("certbot renew --cert-name vpn.example.org", "command", 3),
            Planted("/etc/cron.d/certbot", "path", 4),
            Planted("14 days", "number", 5),
            Planted("We decided to move the alerts to Grafana", "decision", 6),
        ),
        summary=(
            "The Madrid office lost the VPN at 2:20 pm: the gateway's certificate had "
            "expired because the renewal cron ran as the wrong user (fixed in "
            "/etc/cron.d/certbot). It was renewed with certbot renew --cert-name "
            "vpn.example.org. Certificate alerts move to Grafana, replacing Nagios, and go "
            "to the on-call rotation."
        ),
        dropped=frozenset({"openssl s_client -connect vpn.example.org:443", "14 days"}),
    ),
)
