"""The loss-report benchmark's held-out corpus: written after the report's rules were tuned
on `summary_loss_corpus.py`, and not used to tune them. Same form (see that module)."""

from __future__ import annotations

from summary_loss_corpus import Case, Planted

CASES: tuple[Case, ...] = (
    Case(
        name="an API rate limit",
        turns=(
            "Our partner API started returning 429s this morning. The docs at "
            "https://developer.partnerpay.com/limits say 600 requests per minute per key.",
            "We send bursts of about 900 a minute at the top of each hour when the sync job "
            "runs. Spreading the job over the hour would keep us under the limit.",
            "The sync job is sync_ledgers in jobs/ledger_sync.py, scheduled by cron at minute 0.",
            "Add jitter: each worker sleeps a random 0 to 50 minutes before starting, or use a "
            "token bucket in the HTTP client with a rate of 8 requests per second.",
            "Let's use the token bucket; jitter makes the finish time unpredictable and "
            "accounting needs the data by 07:00.",
            "Then set it at 8 per second with a burst of 20, and retry 429s with the "
            "Retry-After header instead of a fixed delay.",
            "Our contract with PartnerPay forbids more than 3 retries for the same request.",
            "I'll cap retries at 3 and log each one with the request id.",
        ),
        planted=(
            Planted("https://developer.partnerpay.com/limits", "url", 0),
            Planted("600", "number", 0),
            Planted("sync_ledgers", "identifier", 2),
            Planted("jobs/ledger_sync.py", "path", 2),
            Planted("Let's use the token bucket", "decision", 4),
            Planted("07:00", "date", 4),
            Planted("burst of 20", "number", 5),
            Planted("forbids more than 3 retries", "constraint", 6),
        ),
        summary=(
            "PartnerPay started rejecting us with 429s: its limit is 600 calls a minute per "
            "key, and the hourly ledger sync (cron, minute 0) bursts about 900. A token bucket "
            "in the HTTP client (eight per second) replaces the idea of random delays, "
            "because accounting needs the data by 7 am; 429s are retried after Retry-After."
        ),
        dropped=frozenset(
            {
                "https://developer.partnerpay.com/limits",
                "sync_ledgers",
                "jobs/ledger_sync.py",
                "burst of 20",
                "forbids more than 3 retries",
            }
        ),
    ),
    Case(
        name="a wedding",
        turns=(
            "My brother Luca is getting married on 14 June 2025 in Verona. I'm organising "
            "the dinner for 85 guests.",
            "A summer dinner for 85 in Verona: book the venue now, June is busy. What budget "
            "per head are you thinking?",
            "Around €70 per head for food, drinks separate. The venue is Villa Moroni, they "
            "want a 30% deposit.",
            "That is reasonable. Ask whether the deposit is refundable if the date moves.",
            "They said it is refundable until March 1. We picked the seafood menu over the "
            "meat one, since most guests prefer fish.",
            "Make sure there is a vegetarian option; with 85 guests a few will need one.",
            "Yes, 6 guests are vegetarian. The bride insists that nothing contains "
            "peanuts, her mother is allergic.",
            "Tell the caterer in writing and ask them to confirm the kitchen handles it.",
        ),
        planted=(
            Planted("14 June 2025", "date", 0),
            Planted("Verona", "name", 0),
            Planted("€70", "number", 2),
            Planted("Villa Moroni", "name", 2),
            Planted("30%", "number", 2),
            Planted("March 1", "date", 4),
            Planted("We picked the seafood menu over the meat one", "decision", 4),
            Planted("6 guests", "number", 6),
        ),
        summary=(
            "Luca's wedding is on 14/06/2025 in Verona; the user organises dinner for 85. "
            "Food budget about seventy euros per head, drinks apart; the venue takes a "
            "deposit, refundable until 1 March. Seafood was chosen instead of meat because "
            "most guests like fish. No peanuts in any dish (allergy in the family)."
        ),
        dropped=frozenset({"Villa Moroni", "30%", "6 guests"}),
    ),
    Case(
        name="a memory leak",
        turns=(
            "Our worker's memory grows from 300 MB to 2.1 GB over a day and then it gets "
            "OOM-killed. It's a Celery worker running ingest.tasks.parse_feed.",
            "Track allocations with tracemalloc: take a snapshot at start and every hour, and "
            "compare the top 10 lines by size.",
            "The top growth is in feedparser/html.py and our own cache in ingest/cache.py, "
            "the FeedCache class.",
            "FeedCache probably never evicts. Use functools.lru_cache with maxsize, or "
            "cachetools.TTLCache with a one-hour TTL.",
            "We decided on TTLCache with maxsize=5000 and ttl=3600.",
            "Also set worker_max_tasks_per_child=200 as a safety net, so a worker restarts "
            "after 200 tasks even if something else leaks.",
            "Memory now stays flat around 420 MB. We must not restart workers during the "
            "nightly import between 01:00 and 03:00.",
            "Then schedule deploys outside that window and keep the max-tasks limit.",
        ),
        planted=(
            Planted("2.1 GB", "number", 0),
            Planted("ingest.tasks.parse_feed", "identifier", 0),
            Planted("ingest/cache.py", "path", 2),
            Planted("FeedCache", "identifier", 2),
            Planted("We decided on TTLCache with maxsize=5000 and ttl=3600", "decision", 4),
            Planted("worker_max_tasks_per_child", "identifier", 5),
            Planted("420 MB", "number", 6),
            Planted("We must not restart workers during the nightly import", "constraint", 6),
        ),
        summary=(
            "The Celery worker grew to over two gigabytes a day and was OOM-killed. "
            "tracemalloc pointed at FeedCache in ingest/cache.py, which never evicted; it is "
            "now a TTLCache (5000 entries, one-hour TTL), and workers restart after 200 "
            "tasks. Memory is flat at 420 MB."
        ),
        dropped=frozenset(
            {
                "2.1 GB",
                "ingest.tasks.parse_feed",
                "worker_max_tasks_per_child",
                "We must not restart workers during the nightly import",
            }
        ),
    ),
    Case(
        name="a grant application",
        turns=(
            "We're applying to the Horizon Europe call HORIZON-CL5-2025-D3-01. The deadline "
            "is 18 February 2025 at 17:00 Brussels time.",
            "For that call the consortium needs at least three partners from three member "
            "states. Who is on board?",
            "TU Delft, Fraunhofer ISE and us, the University of Porto. Dr. Inês Carvalho "
            "coordinates.",
            "Good spread. The budget ceiling is €4.5 million; keep personnel under 60% so "
            "there is room for equipment.",
            "We agreed that Fraunhofer leads work package 3 on pilots.",
            "Then they should write the pilot section and its risk table.",
            "The proposal must be under 45 pages for part B, and we can't include any "
            "letters of support.",
            "Noted. I'll draft the outline in the shared folder at "
            "/proposals/horizon-cl5/outline.md.",
        ),
        planted=(
            Planted("HORIZON-CL5-2025-D3-01", "name", 0),
            Planted("18 February 2025", "date", 0),
            Planted("Inês Carvalho", "name", 2),
            Planted("€4.5 million", "number", 3),
            Planted("60%", "number", 3),
            Planted("We agreed that Fraunhofer leads work package 3", "decision", 4),
            Planted("The proposal must be under 45 pages for part B", "constraint", 6),
            Planted("/proposals/horizon-cl5/outline.md", "path", 7),
        ),
        summary=(
            "Horizon Europe proposal (call HORIZON-CL5-2025-D3-01), due Feb 18, 2025 at 17:00 "
            "Brussels time. Partners: TU Delft, Fraunhofer ISE and the University of Porto, "
            "coordinated by Carvalho. Budget up to 4.5 million euros. Fraunhofer will lead "
            "WP3 (pilots). Part B is limited to 45 pages."
        ),
        dropped=frozenset({"60%", "/proposals/horizon-cl5/outline.md"}),
    ),
    Case(
        name="a frontend bug",
        turns=(
            "Users on Safari 17 see a blank checkout page. The console says "
            "'ReferenceError: structuredClone is not defined'.",
            "structuredClone exists from Safari 15.4, so this is likely an older embedded "
            "WebView, for example inside the Instagram in-app browser.",
            "Yes, the user agents are all from the Instagram app. The call is in "
            "src/checkout/useCart.ts, inside cloneCart().",
            "Replace it with a small deep copy or JSON.parse(JSON.stringify(cart)) since the "
            "cart holds only plain data.",
            "We'll go with the JSON round trip; the cart has no dates or maps.",
            "Add a test that runs the checkout with structuredClone deleted from globalThis.",
            "Release is on Thursday. Never ship checkout changes without the QA sign-off from "
            "Olga.",
            "I'll ask Olga to run the in-app browser cases on Wednesday.",
        ),
        planted=(
            Planted("Safari 17", "name", 0),
            Planted("src/checkout/useCart.ts", "path", 2),
            Planted("cloneCart()", "identifier", 2),
            Planted("We'll go with the JSON round trip", "decision", 4),
            Planted("globalThis", "identifier", 5),
            Planted("Thursday", "date", 6),
            Planted("Never ship checkout changes without the QA sign-off", "constraint", 6),
        ),
        summary=(
            "Blank checkout in the Instagram in-app browser: structuredClone is missing "
            "there. cloneCart() in src/checkout/useCart.ts now copies the cart with "
            "JSON.parse(JSON.stringify(...)). Olga does QA on Wednesday before the release; "
            "checkout changes never ship without her sign-off."
        ),
        dropped=frozenset({"Safari 17", "globalThis", "Thursday"}),
    ),
    Case(
        name="moving house",
        turns=(
            "We're moving from Leeds to Edinburgh on the 28th of August. The removal company, "
            "Clarke & Sons, quoted £1,650.",
            "That's a fair price for a two-bedroom flat over that distance. Does it include "
            "packing?",
            "No, packing is another £380. We decided to pack ourselves and save the money.",
            "Then start two weeks ahead, one room at a time, and label boxes by room.",
            "The new flat is at 22 Marchmont Road. Parking for the van must be booked with "
            "the council at least 10 days before.",
            "Book it this week. Edinburgh's parking suspension form is at "
            "https://www.edinburgh.gov.uk/parking-suspensions.",
            "Also, the landlord wants the keys back by 12:00 on moving day.",
            "Then have the van loaded by 11 and do the final clean the day before.",
        ),
        planted=(
            Planted("28th of August", "date", 0),
            Planted("Clarke & Sons", "name", 0),
            Planted("£1,650", "number", 0),
            Planted("We decided to pack ourselves", "decision", 2),
            Planted("Marchmont Road", "name", 4),
            Planted("must be booked with the council at least 10 days before", "constraint", 4),
            Planted("https://www.edinburgh.gov.uk/parking-suspensions", "url", 5),
            Planted("12:00", "date", 6),
        ),
        summary=(
            "Moving from Leeds to Edinburgh on 28 August with Clarke & Sons (1650 pounds); "
            "they will pack themselves instead of paying extra. New address: 22 Marchmont "
            "Road. The van's parking has to be booked with the council ten days ahead or "
            "more. Keys go back to the landlord by noon on moving day."
        ),
        dropped=frozenset({"https://www.edinburgh.gov.uk/parking-suspensions"}),
    ),
    Case(
        name="a data pipeline",
        turns=(
            "The nightly dbt run fails on the model fct_orders with a duplicate key error "
            "since yesterday.",
            "Something upstream produces duplicate order ids. Check stg_orders: "
            "`dbt test --select stg_orders` runs its unique test.",
            "The test fails: 1,274 duplicated order_id values, all from the Shopify source "
            "after the connector update on 2024-11-04.",
            "The connector now emits one row per order update. Deduplicate in stg_orders with "
            "row_number() over (partition by order_id order by updated_at desc).",
            "We chose to dedupe in staging rather than ask the vendor for a fix.",
            "Good. Add a freshness check on the source, warn after 12 hours.",
            "Our warehouse is Snowflake; the models must never use SELECT * because of "
            "column-level masking.",
            "Fine, I'll list the columns explicitly in the staging model.",
        ),
        planted=(
            Planted("fct_orders", "identifier", 0),
            Planted("dbt test --select stg_orders", "command", 1),
            Planted("1,274", "number", 2),
            Planted("2024-11-04", "date", 2),
            Planted("We chose to dedupe in staging rather than ask the vendor", "decision", 4),
            Planted("12 hours", "number", 5),
            Planted("Snowflake", "name", 6),
            Planted("the models must never use SELECT *", "constraint", 6),
        ),
        summary=(
            "fct_orders failed on duplicate keys: since the Shopify connector update on Nov 4, "
            "2024 it sends one row per order update (1274 duplicates in stg_orders). The "
            "staging model now keeps the latest row per order_id; the team dedupes there "
            "instead of waiting for the vendor. Snowflake masking means no SELECT * in "
            "models."
        ),
        dropped=frozenset({"dbt test --select stg_orders", "12 hours"}),
    ),
    Case(
        name="a conference talk",
        turns=(
            "My talk at PyCon Italia is accepted! It's on 30 May, 25 minutes plus 5 for "
            "questions, in room Lorenzo.",
            "Congratulations. 25 minutes is about 15 to 18 slides if you demo. What's the topic?",
            "Profiling async Python. I want to demo py-spy and the asyncio debug mode.",
            "Run the demo from a recording in case the venue Wi-Fi fails, and keep a "
            "fallback video.",
            "Good idea. We decided to cut the section on uvloop, it doesn't fit.",
            "Then end with three takeaways and a link to your slides, for example "
            "https://slides.example.dev/async-profiling.",
            "The organisers require slides to be uploaded by 23 May.",
            "Upload a PDF so nothing breaks in their viewer.",
        ),
        planted=(
            Planted("PyCon Italia", "name", 0),
            Planted("30 May", "date", 0),
            Planted("25 minutes", "number", 0),
            Planted("py-spy", "command", 2),
            Planted("We decided to cut the section on uvloop", "decision", 4),
            Planted("https://slides.example.dev/async-profiling", "url", 5),
            Planted("23 May", "date", 6),
        ),
        summary=(
            "The user speaks at PyCon Italia on May 30 (twenty-five minutes plus questions) "
            "about profiling async Python, demoing py-spy and asyncio's debug mode from a "
            "recording. Slides are due with the organisers by May 23."
        ),
        dropped=frozenset(
            {
                "We decided to cut the section on uvloop",
                "https://slides.example.dev/async-profiling",
            }
        ),
    ),
)
