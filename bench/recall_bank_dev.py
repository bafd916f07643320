"""The template bank of the tuning corpus: friends chatting, and users planning with an assistant."""

from __future__ import annotations

from recall_bank_types import Bank, FactSpec, Persona

F = FactSpec

FRIEND_FACTS = (
    F(
        "novel",
        (
            "Finally finished the first draft of my novel! It's a mix of drama and romance, set "
            "in a {place} during one long winter.",
        ),
        (
            ("paraphrase", "What genre is {S}'s debut book?", (0,)),
            ("single", "Where is {S}'s novel set?", (0,)),
        ),
        slots={"place": ("lighthouse", "fishing village", "mountain hotel", "ferry port")},
        replies=("That's huge, {O}! Can I read it when it's ready?", "Wow, a whole draft!"),
        mentions=(
            "Rewrote chapter three of the novel again, still not happy with it.",
            "My novel is on pause, work ate all my evenings.",
        ),
    ),
    F(
        "dog",
        ("We adopted a dog last weekend! A {breed}, we named him {pet}.",),
        (
            ("single", "What is the name of {S}'s dog?", (0,)),
            ("paraphrase", "Which breed did {S} pick when getting a new puppy?", (0,)),
        ),
        slots={
            "breed": ("beagle", "border collie", "greyhound", "corgi"),
            "pet": ("Biscuit", "Pepper", "Mochi", "Rusty"),
        },
        replies=("Send pictures immediately!!", "Aww, I need to meet him."),
        mentions=(
            "The dog park was packed today, so many puppies.",
            "Dog training class tonight, wish me luck.",
            "Walked the dog in the rain for an hour, soaked.",
        ),
        mention_rate=0.15,
    ),
    F(
        "marathon",
        ("Ran my first half marathon on {D}! Finished in {time}, legs are dead.",),
        (
            ("temporal", "When did {S} run a first half marathon?", (0,)),
            ("single", "What was {S}'s finishing time in the half marathon?", (0,)),
        ),
        slots={"time": ("1:58", "2:04", "1:49", "2:11")},
        replies=("You're a machine, {O}!", "So proud of you! How are the knees?"),
        mentions=(
            "Thinking about signing up for a full marathon next year, am I crazy?",
            "Went for an easy run by the river, first one since the race.",
        ),
        mention_rate=0.12,
    ),
    F(
        "sister_job",
        (
            "My sister {sis} just got the job as a {job}, she's over the moon.",
            "{sis} is moving to {city} for the new job, leaving in two weeks.",
        ),
        (
            ("multi", "Which city is {S}'s sister moving to for her work as a {job}?", (0, 1)),
            ("single", "What job did {S}'s sister get?", (0,)),
        ),
        slots={
            "sis": ("Lena", "Nora", "Ivy", "Clara"),
            "job": ("pediatric nurse", "sound engineer", "marine biologist", "architect"),
            "city": ("Rotterdam", "Porto", "Montreal", "Edinburgh"),
        },
        replies=("Tell her congrats from me!", "That's such big news for your family."),
        mentions=("Had a long call with my sister last night, she misses home.",),
    ),
    F(
        "lisbon_trip",
        ("Booked it: we fly to {trip} on {D} for five days, first holiday in two years.",),
        (
            ("temporal", "When did {S} fly to {trip}?", (0,)),
            ("single", "How many days was {S}'s holiday in {trip}?", (0,)),
        ),
        slots={"trip": ("Lisbon", "Kyoto", "Reykjavik", "Seville")},
        replies=("Jealous!! You deserve it.", "Amazing, bring me a souvenir."),
        mentions=(
            "Still dreaming about the food in {trip}.",
            "My friend just got back from {trip} too, small world.",
            "Printed the {trip} photos and put them on the fridge.",
        ),
        mention_rate=0.15,
    ),
    F(
        "pottery",
        (
            "Signed up for a pottery class on Thursday evenings, starting {D}.",
            "Brought home my first bowl from pottery, it's wonky but I love it.",
        ),
        (
            ("temporal", "When did {S}'s pottery class start?", (0,)),
            (
                "multi",
                "On which weekday evenings does {S} go to the class where the first bowl was made?",
                (0, 1),
            ),
        ),
        replies=("That sounds so relaxing.", "Make me a mug!"),
        mentions=("Pottery was cancelled this week, the kiln broke.",),
    ),
    F(
        "allergy",
        ("Found out I'm allergic to {allergen}, the doctor says no more of it at all.",),
        (
            ("paraphrase", "What food must {S} avoid for health reasons?", (0,)),
            ("single", "What is {S} allergic to?", (0,)),
        ),
        slots={"allergen": ("shellfish", "peanuts", "sesame", "kiwi")},
        replies=("Oh no, that explains a lot though.", "Scary! Glad you know now."),
    ),
    F(
        "car",
        (
            "Sold my old car and bought a used {car}, it's {colour} and smells like new.",
            "Change of plan with the car: the {car} kept failing, I returned it and got a {car2} "
            "instead.",
        ),
        (
            ("superseded", "What car does {S} drive now?", (1,)),
            ("single", "What colour was the {car} {S} bought?", (0,)),
        ),
        slots={
            "car": ("Honda Civic", "Toyota Yaris", "Skoda Octavia", "Mazda 3"),
            "colour": ("dark green", "silver", "bright red", "navy blue"),
            "car2": ("Kia Ceed", "Ford Focus", "Volkswagen Golf", "Hyundai i30"),
        },
        replies=("Road trip!", "Finally, no more bus at 6am."),
        mentions=("Took the car for a wash, felt like an adult.",),
        gap=5,
    ),
    F(
        "apartment",
        ("We signed the lease on the new apartment on {street}, moving in next month.",),
        (
            ("single", "On which street is {S}'s new apartment?", (0,)),
            ("paraphrase", "Where will {S} live after the move?", (0,)),
        ),
        slots={"street": ("Baker Lane", "Willow Street", "Harbour Road", "Elm Terrace")},
        replies=("Housewarming party?!", "Finally, a place with a real kitchen."),
        mentions=(
            "Packing boxes everywhere, the apartment looks like a warehouse.",
            "The new apartment has the worst water pressure.",
        ),
        mention_rate=0.12,
    ),
    F(
        "guitar",
        (
            "I started guitar lessons with a teacher called {teacher}, twice a week.",
            "{teacher} says I'm ready to play at the open mic night at {venue}.",
        ),
        (
            ("multi", "Where will {S} perform, according to the guitar teacher?", (0, 1)),
            ("single", "Who teaches {S} guitar?", (0,)),
        ),
        slots={
            "teacher": ("Marco", "Ingrid", "Tomasz", "Dele"),
            "venue": ("The Blue Fox", "Cafe Mondo", "the Crown pub", "Riverside Hall"),
        },
        replies=("Rockstar!", "Play me something next time."),
        mentions=("My fingers hurt so much from practising chords.",),
    ),
    F(
        "birthday_party",
        (
            "For my birthday party let's do a picnic in {park} on Saturday.",
            "Party update: rain is forecast, so the birthday party moves to {bar} instead of the "
            "park.",
        ),
        (("superseded", "Where is {S}'s birthday party being held?", (1,)),),
        slots={
            "park": ("Victoria Park", "the botanical garden", "Regent's Park", "the lake"),
            "bar": (
                "Lucky's bar",
                "the bowling alley",
                "my parents' garden room",
                "the tapas place on Main Street",
            ),
        },
        replies=("I'll bring snacks!", "Count me in."),
        gap=1,
    ),
    F(
        "promotion",
        ("Big news: I got promoted to {title}, starting on {D}.",),
        (
            ("temporal", "When did {S} get promoted?", (0,)),
            ("paraphrase", "What is {S}'s new position at the company after the raise?", (0,)),
        ),
        slots={"title": ("team lead", "senior analyst", "head of design", "project manager")},
        replies=("Drinks on you then!", "Knew it would happen, {O}!"),
        mentions=("Work has been intense since the promotion, so many meetings.",),
    ),
    F(
        "vegan",
        ("I've been fully plant-based for a month now, no meat or dairy, feeling great.",),
        (("paraphrase", "Does {S} still eat cheese and steak?", (0,)),),
        replies=("Respect, I could never give up cheese.", "What do you even eat for breakfast?"),
    ),
    F(
        "grandma",
        ("My grandma turned {age} last weekend, the whole family came over for cake.",),
        (("single", "How old did {S}'s grandma turn?", (0,)),),
        slots={"age": ("ninety", "eighty-five", "ninety-two", "eighty")},
        replies=("That's incredible, give her a hug from me!",),
        mentions=("Visited grandma today, she beat me at cards again.",),
    ),
    F(
        "bike_stolen",
        ("Someone stole my bike from outside the library on {D}, I'm furious.",),
        (
            ("temporal", "When was {S}'s bike stolen?", (0,)),
            ("paraphrase", "What happened to {S}'s bicycle?", (0,)),
        ),
        replies=("No way, did you report it?", "People are the worst."),
    ),
    F(
        "course",
        (
            "Enrolled in an evening course on {subject}, the final exam is in June.",
            "Passed the {subject} exam with {grade}!",
        ),
        (
            ("multi", "What grade did {S} get in the evening course's final exam?", (0, 1)),
            ("single", "What subject is {S}'s evening course?", (0,)),
        ),
        slots={
            "subject": ("web design", "Italian", "accounting", "photography"),
            "grade": ("a distinction", "an A", "92 percent", "top marks"),
        },
        replies=("You're so disciplined.", "Proud of you!"),
        gap=6,
    ),
    F(
        "wedding",
        ("{friend} and {partner} set the wedding date: it's on {D} next year, in {venue}.",),
        (
            ("single", "Where are {friend} and {partner} getting married?", (0,)),
            ("paraphrase", "Where is the ceremony for {S}'s engaged friends going to be?", (0,)),
        ),
        slots={
            "friend": ("Sam", "Priya", "Jonas", "Mei"),
            "partner": ("Alex", "Rosa", "Kenji", "Leo"),
            "venue": (
                "an old barn in Somerset",
                "a vineyard near Bordeaux",
                "a castle in Scotland",
                "a beach in Crete",
            ),
        },
        replies=("Ahh so romantic!", "We have to go together."),
        mentions=("Still haven't bought a wedding present, help.",),
    ),
    F(
        "coffee",
        ("Quit coffee completely, switched to green tea. Day {days} and the headaches stopped.",),
        (("paraphrase", "What does {S} drink in the morning now instead of espresso?", (0,)),),
        slots={"days": ("ten", "twelve", "nine", "fifteen")},
        replies=("Impressive, I'd die.", "Green tea gang."),
    ),
    F(
        "book_club",
        (
            "Book club picked {book} for next month, I'm hosting.",
            "Book club changed its mind: we're reading {book2} instead, {book} was too long.",
        ),
        (("superseded", "Which book is {S}'s book club reading next?", (1,)),),
        slots={
            "book": ("War and Peace", "Middlemarch", "The Goldfinch", "Infinite Jest"),
            "book2": ("Klara and the Sun", "Circe", "Normal People", "The Road"),
        },
        replies=("Ooh, tell me if it's good.",),
        gap=2,
    ),
    F(
        "knee",
        (
            "Hurt my knee playing football, the physio says six weeks off.",
            "Knee is healed! Back on the pitch on {D}.",
        ),
        (
            ("temporal", "When did {S} go back to playing after the injury?", (0, 1)),
            ("paraphrase", "How long was the recovery period the therapist gave?", (0,)),
        ),
        replies=("Ouch, take it easy.", "Welcome back!"),
        gap=4,
    ),
    F(
        "garden",
        ("Planted {veg} and strawberries in the allotment, fingers crossed.",),
        (("single", "What did {S} plant in the allotment?", (0,)),),
        slots={"veg": ("tomatoes", "courgettes", "runner beans", "potatoes")},
        replies=("Green thumb!",),
        mentions=(
            "Slugs ate half the allotment, war has been declared.",
            "Spent the whole morning weeding, my back.",
        ),
        mention_rate=0.12,
    ),
    F(
        "concert",
        ("Got tickets to see {band} on {D}, front row!!",),
        (
            ("temporal", "When is the {band} concert?", (0,)),
            ("single", "Which band is {S} going to see live?", (0,)),
        ),
        slots={"band": ("Arctic Monkeys", "Florence and the Machine", "Coldplay", "Fontaines DC")},
        replies=("NO WAY. I'm so jealous.", "Scream a song for me."),
        mentions=("Listening to nothing but {band} to get ready for the gig.",),
    ),
    F(
        "neighbour",
        ("The new neighbour is a retired pilot called {neighbour}, he flew for forty years.",),
        (
            ("paraphrase", "Who lives next door to {S} now?", (0,)),
            ("single", "What did {S}'s new neighbour do before retiring?", (0,)),
        ),
        slots={"neighbour": ("Mr Halvorsen", "Gerald", "Mr Okafor", "Bernard")},
        replies=("He must have stories!",),
    ),
    F(
        "diet_club",
        (
            "Joined a climbing gym near work, I go on Mondays and Wednesdays.",
            "Switched my climbing days: it's Tuesdays and Fridays now, the gym is quieter.",
        ),
        (("superseded", "Which days does {S} go climbing?", (1,)),),
        replies=("Strong!", "Take me with you sometime."),
        gap=4,
    ),
    F(
        "first_job",
        ("My first ever job was scooping ice cream at a kiosk on the pier, age sixteen.",),
        (("paraphrase", "Where did {S} earn money as a teenager?", (0,)),),
        replies=("Free ice cream though?",),
    ),
    F(
        "movie",
        ("Watched {film} last night and cried the whole ending.",),
        (("single", "Which film made {S} cry?", (0,)),),
        slots={"film": ("Past Lives", "Coco", "Aftersun", "Up")},
        replies=("That one gets everyone.",),
        mentions=("Movie night again, any recommendations?",),
        mention_rate=0.12,
    ),
    F(
        "surgery",
        ("Mum's operation is scheduled for {D}, I'm taking the week off to be with her.",),
        (("temporal", "When is {S}'s mum having her operation?", (0,)),),
        replies=("Sending love to both of you.",),
        mentions=("Mum is doing better, thanks for asking.",),
    ),
    F(
        "language",
        (
            "Started learning {lang} on an app, trying to be fluent before the wedding in June.",
            "Had my first real conversation in {lang} with the waiter, he understood me!",
        ),
        (
            (
                "multi",
                "Which language did {S} speak with the waiter, and why is {S} learning it?",
                (0, 1),
            ),
        ),
        slots={"lang": ("Portuguese", "Japanese", "Greek", "Polish")},
        replies=("That's so cool!",),
        gap=4,
    ),
)

ASSISTANT_FACTS = (
    F(
        "database",
        (
            "For the backend let's use PostgreSQL, we need proper transactions and the team knows "
            "it.",
            "Change of plan on the backend: we're moving to SQLite for the first release, the ops "
            "cost of Postgres is too high for three users.",
        ),
        (
            ("superseded", "Which database are we using for the first release?", (1,)),
            ("paraphrase", "Where will the app keep its records?", (1,)),
        ),
        gap=5,
    ),
    F(
        "deadline",
        ("The client moved the launch to {D}, so we have less time than planned.",),
        (
            ("temporal", "When is the launch?", (0,)),
            ("paraphrase", "By what day must the product ship?", (0,)),
        ),
        mentions=("Feeling the launch pressure already.",),
    ),
    F(
        "budget",
        ("The kitchen renovation budget is capped at {amount} euros, including the appliances.",),
        (
            ("single", "What is the budget for the kitchen renovation?", (0,)),
            ("paraphrase", "How much money can I spend redoing the room where I cook?", (0,)),
        ),
        slots={"amount": ("12,000", "8,500", "15,000", "9,800")},
        mentions=("Looked at kitchen showrooms again today, everything is expensive.",),
    ),
    F(
        "flooring",
        (
            "For the living room floor I've decided on oak planks, natural finish.",
            "Update on the floor: oak is over budget, we're going with bamboo instead.",
        ),
        (
            ("superseded", "What flooring are we putting in the living room?", (1,)),
            ("single", "Which finish did I want on the oak planks?", (0,)),
        ),
        gap=4,
    ),
    F(
        "electrician",
        ("The electrician, {tradesman}, is booked for {D} to rewire the hallway.",),
        (
            ("temporal", "When is the electrician coming?", (0,)),
            ("single", "What is the electrician's name?", (0,)),
        ),
        slots={"tradesman": ("Dariusz", "Femi", "Oskar", "Kevin")},
        mentions=("The hallway lights flickered again last night.",),
    ),
    F(
        "framework",
        ("Frontend decision: we build it with {fw}, nobody wants to learn anything new.",),
        (
            ("single", "Which frontend framework did we choose?", (0,)),
            ("paraphrase", "What are we writing the user interface in?", (0,)),
        ),
        slots={"fw": ("React", "Vue", "Svelte", "Angular")},
        mentions=("The frontend build is so slow on my laptop.",),
    ),
    F(
        "cofounder",
        (
            "My cofounder {cof} handles sales; I handle the product and the code.",
            "{cof} closed our first paying customer, a bakery chain with {shops} shops.",
        ),
        (
            (
                "multi",
                "Who found our first paying customer and how many shops does it have?",
                (0, 1),
            ),
        ),
        slots={
            "cof": ("Anika", "Ruben", "Sofia", "Tariq"),
            "shops": ("twelve", "forty", "seven", "twenty"),
        },
        gap=4,
    ),
    F(
        "pricing",
        (
            "Pricing: we'll charge {price} per month per seat, no free tier.",
            "We changed the pricing after the feedback: a free tier for up to three seats, then "
            "{price2} per seat.",
        ),
        (
            ("superseded", "What is our pricing now?", (1,)),
            ("single", "What did we first plan to charge per seat?", (0,)),
        ),
        slots={"price": ("$12", "$20", "$9", "$15"), "price2": ("$10", "$18", "$8", "$14")},
        gap=5,
    ),
    F(
        "spanish",
        ("My Spanish exam (DELE B2) is on {D}, I need a study plan.",),
        (
            ("temporal", "When is my Spanish exam?", (0,)),
            ("single", "Which level is the Spanish exam I'm taking?", (0,)),
        ),
        mentions=("Did two hours of Spanish listening practice today.",),
        mention_rate=0.15,
    ),
    F(
        "hosting",
        ("We'll host everything on a single Hetzner box in Falkenstein to keep costs down.",),
        (("paraphrase", "Which provider runs our servers, and in what data centre?", (0,)),),
    ),
    F(
        "wedding_venue",
        (
            "Wedding venue is settled: the old mill by the river, 80 guests max.",
            "We lost the mill, they double-booked us. The wedding is now at the {venue2}.",
        ),
        (
            ("superseded", "Where is the wedding now?", (1,)),
            ("single", "How many guests could the mill hold?", (0,)),
        ),
        slots={
            "venue2": ("botanic glasshouse", "harbour hotel", "town hall ballroom", "family farm")
        },
        gap=4,
    ),
    F(
        "caterer",
        ("We hired {caterer} for the food, they do a great vegetarian menu.",),
        (
            ("single", "Who is catering?", (0,)),
            ("paraphrase", "Which company will feed the guests?", (0,)),
        ),
        slots={"caterer": ("Fennel & Fig", "Green Table", "Olive Branch Kitchen", "Saffron Co")},
    ),
    F(
        "training",
        (
            "My training plan: three runs a week, long run on Sundays, aiming for a sub-4 marathon "
            "in {city}.",
        ),
        (
            ("single", "Which marathon am I training for?", (0,)),
            ("paraphrase", "On what weekday is my longest jog?", (0,)),
        ),
        slots={"city": ("Berlin", "Chicago", "Valencia", "Amsterdam")},
        mentions=("My calves are sore after the intervals.",),
        mention_rate=0.15,
    ),
    F(
        "api_auth",
        ("Auth decision: sessions in cookies, no JWTs; we can revisit if we add a mobile app.",),
        (
            ("single", "Did we decide to use JWTs for auth?", (0,)),
            ("paraphrase", "How do logged-in users stay signed in?", (0,)),
        ),
    ),
    F(
        "bug",
        ("Found the cause of the invoice bug: the timezone conversion ran twice on {D}'s import.",),
        (
            ("single", "What caused the invoice bug?", (0,)),
            ("temporal", "On which day's import did the invoice problem happen?", (0,)),
        ),
        mentions=("Another invoice came out wrong today, different customer.",),
    ),
    F(
        "tiles",
        ("Bathroom tiles chosen: small white hexagons with dark grey grout.",),
        (
            ("paraphrase", "What will the shower walls look like?", (0,)),
            ("single", "What colour is the grout for the bathroom tiles?", (0,)),
        ),
    ),
    F(
        "manager",
        (
            "My new manager is {boss}, she used to run the data team at a bank.",
            "{boss} wants the quarterly report every {weekday} morning from now on.",
        ),
        (
            (
                "multi",
                "When does my manager want the quarterly report, and where did she work before?",
                (0, 1),
            ),
        ),
        slots={
            "boss": ("Helen", "Ngozi", "Martina", "Yuki"),
            "weekday": ("Monday", "Tuesday", "Thursday", "Friday"),
        },
        gap=3,
    ),
    F(
        "honeymoon",
        ("Honeymoon booked: two weeks in {place}, flying out the day after the wedding.",),
        (
            ("single", "Where are we going on honeymoon?", (0,)),
            ("paraphrase", "What's our destination once we're married?", (0,)),
        ),
        slots={"place": ("Sri Lanka", "Patagonia", "the Azores", "Vietnam")},
    ),
)

CHAT = (
    "Haha {O}, that's amazing!",
    "Ugh, work has been so busy this week.",
    "Did you see the match last night?",
    "I'm so tired, I slept like four hours.",
    "What are you up to this weekend?",
    "Not much, just chilling at home honestly.",
    "Lol same.",
    "Wow, {O}, that looks amazing!",
    "It's been raining all day here.",
    "Honestly I need a holiday.",
    "How's your mum doing?",
    "Can't believe it's already {D}.",
    "I made pasta again, it's the only thing I can cook.",
    "That's so true haha.",
    "I know right?",
    "The traffic this morning was unreal.",
    "My phone screen cracked again, of course.",
    "Are you still watching that detective show?",
    "Yeah, I'm on season three, it's getting weird.",
    "Good luck, {O}! You've got this.",
    "Thanks, {O}, means a lot.",
    "Miss you! We need to catch up properly.",
    "Let's get brunch soon, I'll text you.",
    "Ha, that's so you.",
    "Oh no, what happened?",
    "Long story, tell you later.",
    "My landlord finally fixed the heating.",
    "I've been listening to a podcast about octopuses, they're so smart.",
    "Okay that's hilarious.",
    "I'm trying to drink more water, it's going badly.",
    "Went to the farmers market, bought too many apples.",
    "The cat next door keeps sitting on my windowsill.",
    "Everyone at work is sick, I'm hiding.",
    "Sounds like a plan!",
    "How was your day, {O}?",
    "Pretty good! Busy but good.",
    "I finally cleaned my room, feel like a new person.",
    "Did you ever finish that puzzle?",
    "Nope, missing one piece, I'm convinced the vacuum ate it.",
    "Honestly, {O}, you always know what to say.",
    "It's freezing today.",
    "I tried a new recipe, it was a disaster.",
    "Lmao.",
    "Wait really?",
    "Yes! I couldn't believe it either.",
    "I'm so proud of you, {O}.",
    "My sleep schedule is a mess.",
    "Coffee and a long walk, perfect Sunday.",
    "Have you talked to the others lately?",
    "Not really, everyone's so busy.",
    "I need to stop buying plants, they keep dying.",
    "That's wild.",
    "Same here, {O}. Same here.",
    "Ok I'm off to bed, talk tomorrow!",
    "The new bakery on the corner is dangerous, I've been there three times.",
    "Work drinks tonight, not really in the mood.",
    "I keep forgetting to call the dentist.",
    "Reading a thriller, can't put it down.",
    "My back hurts from the new chair.",
    "Weather's finally nice, spent the afternoon outside.",
    "I love that for you, {O}!",
    "Haha stop it.",
    "How did the meeting go?",
    "Fine I think, my boss seemed happy.",
    "Netflix and takeaway tonight, no regrets.",
    "The train was delayed again, classic.",
    "That made my day, {O}!",
    "Yeah, I think so too.",
    "Fingers crossed!",
    "We should plan something for the summer.",
)

USER_CHAT = (
    "Morning! Quick one before my first meeting.",
    "Can you help me think this through?",
    "Thanks, that's helpful. Let me sit with it.",
    "Okay, next thing on my list.",
    "I talked to the team about it yesterday.",
    "Remind me what the trade-offs were?",
    "Makes sense. I'll try that tonight.",
    "Honestly I'm a bit overwhelmed by everything this week.",
    "Can you make that shorter? I need to paste it into an email.",
    "Good point, I hadn't thought about that.",
    "What would you do in my place?",
    "Let's keep going where we left off.",
    "I'm back, sorry for the delay.",
    "Any quick tips for staying focused today?",
    "Could you give me a checklist for tomorrow?",
    "That's more or less what I expected.",
    "Not sure I agree, but let's try it.",
    "Great, that settles it for now.",
)

REPLIES = (
    "That sounds like a sensible direction. A good next step is to write down what must be "
    "true for it to work, then check each point against what you already know. If something "
    "is uncertain, pick the cheapest experiment that would tell you more, and set a date to "
    "look at the result.",
    "Here is a short checklist: first, list the open questions; second, mark which ones block "
    "the others; third, tackle the blocking ones first, one per day. Keep a running note of "
    "decisions so you can see later why you made them.",
    "Happy to help. The main trade-off is between doing it quickly now and doing it "
    "thoroughly later; both are reasonable, and the right choice depends on how costly a "
    "mistake would be. If undoing it is cheap, move fast.",
    "Good question. I would start by breaking the work into pieces small enough to finish in "
    "an afternoon, then order them by what unblocks the most. That usually makes the first "
    "week feel far less overwhelming.",
    "Noted. I will keep that in mind for the rest of our planning. Is there anything else "
    "that changed since we last talked that I should know about?",
    "A few ideas: block two hours without notifications, put your phone in another room, and "
    "decide in advance what done looks like for the session. Short breaks every fifty "
    "minutes help more than one long break.",
    "That's a lot at once, and it's normal to feel stretched. Try picking the one thing that "
    "would make the rest easier, do only that today, and let the rest wait until tomorrow.",
    "Here is a shorter version you can paste: we have made progress on the main items, a "
    "couple of open points remain, and I will share an update by the end of the week.",
    "It depends on your constraints. If time matters most, choose the option you already "
    "know; if cost matters most, choose the simpler one; if quality matters most, budget for "
    "a second pass after the first version works.",
    "Understood. Let me summarise where we are: the big decisions are made, a few details "
    "are open, and the next concrete step is on your side. Tell me when you want to pick it "
    "up again.",
    "In my experience the biggest risk here is not the plan itself but the hand-offs between "
    "people. Agree on who owns each piece and when they will report back, and most surprises "
    "go away.",
    "Sure. Tomorrow: start with the hardest task while you are fresh, answer messages only "
    "at noon and at four, and finish the day by writing the first step for the next morning.",
    "That is a reasonable worry. You can lower the risk by trying it on a small scale first, "
    "say for one week, and comparing the result with how things went before.",
    "Good to hear. Keeping a simple log of what you tried and how it went will make the next "
    "decision much easier, because you will not have to rely on memory.",
)

OPENERS = (
    "Hey {O}! How's it going?",
    "Hi {O}, happy {D}!",
    "Morning {O}! Long time no talk.",
    "Heyyy {O}, you around?",
    "{O}! Guess what.",
    "Hi {O}, got a minute?",
    "Good evening {O}!",
)

CLOSERS = (
    "Ok gotta run, talk soon!",
    "Anyway, catch you later {O}!",
    "Thanks {O}, bye for now.",
    "Night {O}!",
    "Speak tomorrow!",
)

DEV_BANK = Bank(
    name="dev",
    personas=(
        Persona("Maya and Jon", "friends", "Maya", "Jon", 46, 21),
        Persona("Caroline and Melanie", "friends", "Caroline", "Melanie", 42, 20),
        Persona("Dev and Ana", "friends", "Dev", "Ana", 48, 22),
        Persona("Tobias and Rin", "friends", "Tobias", "Rin", 40, 19),
        Persona("Planning with an assistant (Sara)", "assistant", "Sara", "Assistant", 40, 14),
        Persona("Startup with an assistant (Omar)", "assistant", "Omar", "Assistant", 42, 15),
        Persona(
            "Home and wedding with an assistant (Lucy)", "assistant", "Lucy", "Assistant", 38, 14
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
