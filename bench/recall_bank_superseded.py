"""A second tuning bank: decisions changed in shapes the first bank does not hold.

In the first bank every change repeats the question's topic word ("Change of plan with the
car"). People also change a decision by naming the old choice ("Scratch Lisbon, …"), by
changing it twice, by cancelling it, or by calling the same thing another name ("the baby's
room" for "the nursery"). Every fact here is in every conversation of its kind; the first
bank's other facts fill the rest, as distractors. Recall is tuned on this corpus too; the
held-out bank is never looked at.
"""

from __future__ import annotations

import dataclasses

from recall_bank_dev import DEV_BANK
from recall_bank_types import FactSpec, Persona

F = FactSpec

FRIEND_CHANGES = (
    F(
        "holiday",
        (
            "Booked our summer holiday at last: a week in {city} in {month}!",
            "Scratch {city}, the flights doubled overnight. We're doing {city2} instead.",
        ),
        (
            ("superseded", "Where is {S} going on holiday this summer?", (1,)),
            ("temporal", "Which month did {S} first plan the summer trip for?", (0,)),
        ),
        slots={
            "city": ("Lisbon", "Split", "Naples", "Seville"),
            "city2": ("Porto", "Valencia", "Palermo", "Malaga"),
            "month": ("June", "July", "August"),
        },
        replies=("Jealous!!", "Bring me back something."),
        mentions=("Counting the days until the holiday, honestly.",),
        mention_rate=0.1,
    ),
    F(
        "exercise",
        (
            "Signed up for the gym on {street}, {price} a month, no excuses now.",
            "Cancelled the gym membership, it was always packed. Swimming at the lido instead.",
            "The lido closed for repairs until next year, so I'm back to running in the park.",
        ),
        (("superseded", "Does {S} still go to the gym?", (2,)),),
        slots={
            "street": ("Mill Road", "King Street", "Station Lane", "Hope Street"),
            "price": ("thirty pounds", "forty euros", "twenty-five dollars"),
        },
        replies=("Good for you!", "Respect."),
        gap=2,
    ),
    F(
        "nursery",
        (
            "We're painting the nursery {colour}, I already bought the paint.",
            "Changed our minds about the baby's room, we're doing {colour2} after all.",
        ),
        (("superseded", "What colour is {S}'s nursery going to be?", (1,)),),
        slots={
            "colour": ("pale yellow", "mint green", "soft grey", "sky blue"),
            "colour2": ("terracotta", "lavender", "warm white", "sage"),
        },
        replies=("So cute!", "Send a photo when it's done."),
    ),
    F(
        "spanish",
        (
            "Signed up for the Spanish evening class at the college, starts {D}.",
            "Dropped out of Spanish, the teacher read from slides for two hours. Doing an app "
            "on the bus instead.",
        ),
        (("superseded", "Is {S} still taking the evening class?", (1,)),),
        replies=("Olé!", "Fair enough."),
    ),
    F(
        "new_job",
        (
            "Accepted the offer from {firm}! I start there in {month}.",
            "Plot twist: {firm} froze hiring and withdrew the offer, so I'm staying put after all.",
        ),
        (("superseded", "Is {S} moving to {firm}?", (1,)),),
        slots={
            "firm": ("Northwind", "Brightlane", "Copperleaf", "Halcyon Labs"),
            "month": ("March", "April", "May"),
        },
        replies=("Congratulations!!", "Oh no, I'm so sorry."),
        mentions=("Work is dragging, counting down the weeks.",),
        gap=6,
    ),
    F(
        "wedding_guest",
        (
            "I'm bringing {plusone} to Priya's wedding, she's already bought a dress.",
            "{plusone} can't make it to the wedding after all, so my brother is coming as my "
            "plus-one.",
        ),
        (("superseded", "Who is {S} taking to Priya's wedding?", (1,)),),
        slots={"plusone": ("Sofia", "Lena", "Marco", "Tom")},
        replies=("That'll be fun!",),
    ),
    F(
        "sofa",
        (
            "Ordered a {sofa} sofa from {shop}, arriving in six weeks.",
            "Sent the {sofa} one back, the colour was wrong in daylight. Got a second-hand "
            "leather one off a neighbour.",
            "The leather one had a broken spring, so it's back to the {sofa} sofa, a new one "
            "from {shop2}.",
        ),
        (("superseded", "What sofa does {S} have now?", (2,)),),
        slots={
            "sofa": ("green velvet", "grey corduroy", "mustard linen", "navy wool"),
            "shop": ("Loaf", "Habitat", "IKEA", "Made"),
            "shop2": ("John Lewis", "Heal's", "Dunelm", "Argos"),
        },
        replies=("Comfy!", "Furniture drama, I love it."),
        gap=2,
    ),
    F(
        "dinner",
        (
            "Dinner with the old uni crowd is on {D} at {restaurant}, you in?",
            "Uni dinner moved: half of them can't do that day, so it's the Saturday after, "
            "same place.",
        ),
        (("superseded", "When is the dinner with {S}'s uni friends?", (1,)),),
        slots={"restaurant": ("Dishoom", "Zuma", "the Ivy", "Padella")},
        replies=("Count me in.",),
        gap=2,
    ),
)

ASSISTANT_CHANGES = (
    F(
        "mobile_stack",
        (
            "Let's write the mobile app in {fw}, the team already knows it.",
            "{fw} turned out too heavy for the older phones, so we're rewriting the prototype in "
            "{fw2}.",
        ),
        (("superseded", "Which framework is the mobile app built with?", (1,)),),
        slots={
            "fw": ("React Native", "Flutter", "Ionic"),
            "fw2": ("Kotlin Multiplatform", "SwiftUI and Jetpack Compose", "Capacitor"),
        },
    ),
    F(
        "caterer",
        (
            "Caterer booked for the reception: {c1}, three courses.",
            "{c1} cancelled on us, they overbooked. {c2} can do the same menu.",
            "{c2} raised their price by a third, so we're going with {c3} in the end.",
        ),
        (("superseded", "Who is catering the reception?", (2,)),),
        slots={
            "c1": ("Fork & Field", "Pinch Kitchen", "Saffron Table"),
            "c2": ("Greenleaf Events", "The Supper Club", "Olive Grove"),
            "c3": ("Harbour Feasts", "Bramble & Co", "Little Larder"),
        },
        gap=2,
    ),
    F(
        "marketing_budget",
        (
            "The marketing budget for the third quarter is {amount}, mostly for ads.",
            "Finance cut us back: we get {amount2} for July to September, no more.",
        ),
        (("superseded", "How much is the marketing budget for the third quarter?", (1,)),),
        slots={
            "amount": ("40,000", "25,000", "60,000"),
            "amount2": ("18,000", "12,500", "30,000"),
        },
    ),
    F(
        "launch_date",
        (
            "We'll launch the public beta on {D}, the press list is ready.",
            "Pushing the beta back: signups are broken on Android, new date is {D}.",
        ),
        (("superseded", "When does the public beta launch?", (1,)),),
        gap=4,
    ),
)

SUPERSEDED_BANK = dataclasses.replace(
    DEV_BANK,
    name="dev-superseded",
    personas=(
        Persona("Priya's friends Kim and Leo", "friends", "Kim", "Leo", 44, 18),
        Persona("Nadia and Sam", "friends", "Nadia", "Sam", 40, 16),
        Persona("Ines and Bruno", "friends", "Ines", "Bruno", 46, 18),
        Persona("Launch with an assistant (Theo)", "assistant", "Theo", "Assistant", 40, 12),
        Persona("Wedding with an assistant (June)", "assistant", "June", "Assistant", 38, 12),
    ),
    friend_facts=FRIEND_CHANGES + DEV_BANK.friend_facts,
    assistant_facts=ASSISTANT_CHANGES + DEV_BANK.assistant_facts,
    always=tuple(f.key for f in FRIEND_CHANGES + ASSISTANT_CHANGES),
)
