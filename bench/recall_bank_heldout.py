"""The held-out template bank: other people, topics and phrasing; recall is never tuned on it."""

from __future__ import annotations

from recall_bank_types import Bank, FactSpec, Persona

F = FactSpec

FRIEND_FACTS = (
    F(
        "boat",
        ("My uncle gave me his old sailing boat, she's called the {boat}.",),
        (
            ("single", "What is the name of {S}'s sailing boat?", (0,)),
            ("paraphrase", "Which vessel did a relative hand down to {S}?", (0,)),
        ),
        slots={"boat": ("Marigold", "Sea Otter", "Little Wren", "Blue Heron")},
        replies=("Ahoy captain!", "Take me out on it!"),
        mentions=("Scraped barnacles off the hull all afternoon.",),
    ),
    F(
        "exam",
        (
            "Driving test is on {D}, I've failed it twice already, so nervous.",
            "PASSED my driving test!!! Third time lucky.",
        ),
        (
            ("temporal", "When was {S}'s driving test?", (0,)),
            ("multi", "How many attempts did it take {S} to pass the driving test?", (0, 1)),
        ),
        replies=("You'll smash it.", "Knew you could!"),
        gap=2,
    ),
    F(
        "choir",
        ("Joined a community choir, we rehearse in the church hall on {weekday}s.",),
        (
            ("single", "When does {S}'s choir rehearse?", (0,)),
            ("paraphrase", "Which group does {S} sing with every week?", (0,)),
        ),
        slots={"weekday": ("Tuesday", "Wednesday", "Sunday", "Monday")},
        replies=("Sing me something!",),
        mentions=("Choir concert practice ran late again.",),
        mention_rate=0.12,
    ),
    F(
        "twins",
        ("My cousin {cousin} had twins, a boy and a girl, on {D}!",),
        (
            ("temporal", "When were {S}'s cousin's twins born?", (0,)),
            ("single", "Who had twins in {S}'s family?", (0,)),
        ),
        slots={"cousin": ("Hana", "Fatima", "Greta", "Olu")},
        replies=("Double trouble!", "Congratulations to them!"),
    ),
    F(
        "flat_share",
        (
            "Decided to share a flat with {mate} in {area} from September.",
            "Flat update: {mate} backed out, so I'm moving in with my brother in {area2} instead.",
        ),
        (("superseded", "Where is {S} going to live from September?", (1,)),),
        slots={
            "mate": ("Chloe", "Ravi", "Bea", "Finn"),
            "area": ("Camden", "Leith", "Kreuzberg", "Brooklyn"),
            "area2": ("Hackney", "Stockbridge", "Neukolln", "Queens"),
        },
        replies=("Exciting!",),
        gap=3,
    ),
    F(
        "painting",
        ("Sold my first painting at the street fair, a watercolour of the harbour, for {price}.",),
        (
            ("single", "How much did {S}'s first painting sell for?", (0,)),
            ("paraphrase", "Has {S} ever made money from art? How?", (0,)),
        ),
        slots={"price": ("forty pounds", "ninety euros", "sixty dollars", "a hundred pounds")},
        replies=("An actual artist!",),
        mentions=("Bought new brushes, they were way too expensive.",),
    ),
    F(
        "insomnia",
        ("Doctor thinks my insomnia is from screens, so no phone after nine pm.",),
        (("paraphrase", "Why can't {S} sleep well, according to the GP?", (0,)),),
        replies=("Worth a try.",),
    ),
    F(
        "volunteer",
        (
            "Started volunteering at the animal shelter on Saturdays, mostly walking the older "
            "dogs.",
            "The shelter asked me to coordinate the weekend volunteers from {D}.",
        ),
        (
            (
                "multi",
                "What role does {S} take on at the place with the older dogs, and from when?",
                (0, 1),
            ),
        ),
        replies=("You're a good person, {O}.",),
        gap=4,
    ),
    F(
        "hike",
        (
            "We're hiking {peak} on {D}, leaving at 5am to beat the heat.",
            "Hike is off for that day, storm warning. We moved the {peak} hike to the weekend "
            "after.",
        ),
        (
            ("superseded", "When is {S}'s hike happening?", (1,)),
            ("single", "Which mountain is {S} hiking?", (0,)),
        ),
        slots={"peak": ("Ben Nevis", "Snowdon", "Mount Olympus", "the Zugspitze")},
        replies=("Bring snacks!", "Pack layers."),
        gap=1,
    ),
    F(
        "recipe",
        ("Grandad's secret for the stew is a spoon of cocoa and a splash of dark beer.",),
        (("paraphrase", "What unusual ingredients go into the family's traditional dish?", (0,)),),
        replies=("I'm stealing that.",),
    ),
    F(
        "phone",
        ("My phone fell in the lake on {D}, it's gone forever.",),
        (("temporal", "When did {S} lose the phone?", (0,)),),
        replies=("RIP.", "Nooo."),
    ),
    F(
        "scholarship",
        ("Got the scholarship for the {programme} master's in {uni}!",),
        (
            ("single", "What master's programme is {S} doing?", (0,)),
            ("paraphrase", "Which university awarded funding to {S}?", (0,)),
        ),
        slots={
            "programme": ("urban planning", "marine ecology", "data science", "film studies"),
            "uni": ("Utrecht", "Lund", "Toronto", "Melbourne"),
        },
        replies=("You legend!",),
    ),
    F(
        "chess",
        ("Won the club chess tournament with the {opening}, six wins out of seven.",),
        (("single", "Which opening did {S} use to win the chess tournament?", (0,)),),
        slots={"opening": ("Sicilian Defence", "London System", "King's Gambit", "Caro-Kann")},
        replies=("Grandmaster vibes.",),
        mentions=("Lost three blitz games in a row online, humbling.",),
    ),
    F(
        "roof",
        ("The roof leak is fixed, the roofer found a cracked slate above the bedroom.",),
        (("paraphrase", "Why was water dripping into {S}'s house?", (0,)),),
        replies=("Finally!",),
    ),
    F(
        "holiday_plan",
        (
            "Summer plan: camping in {region} with the kids for ten days.",
            "Scrapped the camping idea, the kids voted for a cottage in {region2} instead.",
        ),
        (("superseded", "What are {S}'s summer holiday plans?", (1,)),),
        slots={
            "region": ("the Lake District", "Brittany", "the Dolomites", "Norway"),
            "region2": ("Cornwall", "Normandy", "Tuscany", "Denmark"),
        },
        replies=("The kids are in charge now!",),
        gap=3,
    ),
)

ASSISTANT_FACTS = (
    F(
        "thesis",
        (
            "My thesis supervisor is Professor {prof}, and the thesis is about {topic}.",
            "Professor {prof} wants the full draft by {D}.",
        ),
        (
            ("multi", "When is the thesis draft due, and what is it about?", (0, 1)),
            ("single", "Who is my thesis supervisor?", (0,)),
        ),
        slots={
            "prof": ("Lindqvist", "Adeyemi", "Moreau", "Kowalski"),
            "topic": (
                "coral bleaching",
                "medieval trade routes",
                "battery recycling",
                "urban heat islands",
            ),
        },
        gap=3,
    ),
    F(
        "queue",
        (
            "For background jobs we settled on Redis with a simple worker, nothing fancy.",
            "We're dropping Redis for jobs: the database-backed queue is enough and one less "
            "service to run.",
        ),
        (("superseded", "What do we use for background jobs now?", (1,)),),
        gap=4,
    ),
    F(
        "move_date",
        ("The removal van is booked for {D}, 8am sharp.",),
        (
            ("temporal", "When is the removal van coming?", (0,)),
            ("paraphrase", "What day do the movers arrive?", (0,)),
        ),
    ),
    F(
        "mortgage",
        ("The bank approved a mortgage of {amount} at {rate} fixed for five years.",),
        (
            ("single", "What interest rate did the bank give me?", (0,)),
            ("paraphrase", "How much can I borrow to buy the house?", (0,)),
        ),
        slots={
            "amount": ("240,000", "310,000", "185,000", "275,000"),
            "rate": ("3.9%", "4.2%", "3.6%", "4.5%"),
        },
    ),
    F(
        "diet",
        ("The dietitian says I should aim for {grams} grams of protein a day.",),
        (("single", "How much protein should I eat daily?", (0,)),),
        slots={"grams": ("120", "95", "140", "110")},
        mentions=("Meal prep Sunday again, chicken and rice for days.",),
        mention_rate=0.12,
    ),
    F(
        "logo",
        (
            "Logo decision: the fox in orange on a dark blue background.",
            "We redid the logo, the fox is now white on teal, the orange clashed with everything.",
        ),
        (("superseded", "What does our logo look like now?", (1,)),),
        gap=3,
    ),
    F(
        "interview",
        ("I have the final interview at {company} on {D}, with the CTO.",),
        (
            ("temporal", "When is my final interview?", (0,)),
            ("single", "Which company am I interviewing with?", (0,)),
        ),
        slots={"company": ("Northwind", "Tessellate", "Brightloop", "Kestrel Labs")},
    ),
    F(
        "garden_design",
        ("For the garden we agreed: a wildflower meadow at the back, paving only near the house.",),
        (("paraphrase", "What are we doing with the outdoor space behind the home?", (0,)),),
    ),
    F(
        "metrics",
        ("Our north-star metric is weekly active teams, not signups.",),
        (
            ("single", "What is our north-star metric?", (0,)),
            ("paraphrase", "Which number do we track above all others to judge growth?", (0,)),
        ),
    ),
    F(
        "translator",
        (
            "I hired a freelance translator, {name}, for the German version of the site.",
            "{name} finished the German site; it goes live on {D}.",
        ),
        (("multi", "When does the translated site go live and who translated it?", (0, 1)),),
        slots={"name": ("Jakob", "Petra", "Lukas", "Anneliese")},
        gap=3,
    ),
)

CHAT = (
    "Hiya {O}, what's new?",
    "Nothing much, just tired.",
    "Did you try that ramen place?",
    "Not yet, it's always full!",
    "This week is never-ending.",
    "Haha classic {O}.",
    "Guess who I bumped into at the supermarket.",
    "No idea, tell me!",
    "Our old maths teacher, he still wears the same jacket.",
    "I'm obsessed with this new album.",
    "Send it over.",
    "My flatmate left the oven on again.",
    "The gym was empty today, bliss.",
    "Can't wait for the weekend.",
    "It's so windy the bins fell over.",
    "I burnt the toast, twice.",
    "You're a star, {O}.",
    "Ugh, Mondays.",
    "We should go to the seaside soon.",
    "Haha yes, let's.",
    "My plants are thriving for once.",
    "I've got a cold, staying in.",
    "Feel better soon, {O}!",
    "Just finished a huge report at work.",
    "Ice cream for dinner, don't judge.",
    "Totally judging, but also jealous.",
    "Do you remember that karaoke night?",
    "How could I forget lol.",
    "Mum sends her love, {O}.",
    "Aw, tell her hi from me.",
    "The bus driver sang the whole way today.",
    "I'm thinking of getting a haircut.",
    "Do it, new season new you.",
    "What time is it there?",
    "Late, I should sleep.",
    "So good to hear from you, {O}.",
    "This heatwave is too much.",
    "My neighbour's parrot says hello every morning.",
    "I can't stop laughing at that meme.",
    "Right? Amazing.",
    "Honestly, same.",
    "The Wi-Fi died again.",
    "It's {D} already? Where did the week go.",
    "I've been doodling in meetings again.",
    "Don't let your boss see haha.",
)

USER_CHAT = (
    "Hello again! Picking up our planning.",
    "Quick question while I have a coffee.",
    "Thank you, very clear.",
    "I shared your notes with my partner.",
    "Can you list the pros and cons briefly?",
    "That's a fair point.",
    "Let me check my calendar and come back.",
    "I'm a bit stuck, any advice?",
    "OK, moving on to the next topic.",
    "Sorry, I got pulled into a call.",
    "Perfect, that works.",
    "Can you rephrase that in plain words?",
)

REPLIES = (
    "A practical way to approach this is to set a single goal for the week and judge every "
    "task by whether it moves you towards it. Things that do not can usually wait, and the "
    "list becomes much shorter.",
    "Pros: it is simple, cheap and quick to start. Cons: it may not scale if your needs grow, "
    "and switching later costs time. On balance it is a good first step if you review it in "
    "a couple of months.",
    "Thanks for the update. I have noted it, and I will take it into account when we "
    "come back to the schedule. Let me know if anything else shifts.",
    "When you feel stuck, try writing the problem as one sentence and the smallest next "
    "action as another. Doing that action, even imperfectly, usually gets things moving "
    "again.",
    "In plain words: do the essential part now, keep the optional parts for later, and "
    "check in with the people affected before you commit to a date.",
    "That works. A tip for the meeting: send the agenda a day ahead and end with who does "
    "what by when, so nothing gets lost afterwards.",
    "It is completely understandable to feel that way. Break the remaining work into steps "
    "of under an hour and celebrate each one; momentum matters more than speed.",
    "If you want a rule of thumb: spend about ten percent of the time planning, eighty "
    "percent doing, and ten percent reviewing what went well and what did not.",
    "Sure. I would compare the options on three things: cost over a year, effort to set up, "
    "and how easy it is to change your mind later. The last one is often overlooked.",
    "Great progress. To keep it going, put the next two tasks in your calendar as "
    "appointments with yourself, with a clear start and end time.",
)

OPENERS = (
    "Yo {O}!",
    "Hello {O}, how are things?",
    "{O}!! It's been ages.",
    "Hey you, happy {D}.",
    "Hi {O}, quick update.",
)

CLOSERS = (
    "Right, off I go. Later {O}!",
    "Bye {O}, take care.",
    "Cheers, speak soon.",
    "Sleep well {O}.",
)

HELDOUT_BANK = Bank(
    name="heldout",
    personas=(
        Persona("Ewan and Priya", "friends", "Ewan", "Priya", 60, 14),
        Persona("Zofia and Kemi", "friends", "Zofia", "Kemi", 62, 15),
        Persona(
            "Thesis and house move with an assistant (Ilse)",
            "assistant",
            "Ilse",
            "Assistant",
            52,
            10,
        ),
        Persona(
            "Product launch with an assistant (Hugo)", "assistant", "Hugo", "Assistant", 50, 10
        ),
    ),
    friend_facts=FRIEND_FACTS,
    assistant_facts=ASSISTANT_FACTS,
    openers=OPENERS,
    closers=CLOSERS,
    chat=CHAT,
    user_chat=USER_CHAT,
    replies=REPLIES,
)
