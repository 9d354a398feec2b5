//! Smoke cases of the triage: one call per assertion, in both languages, for each trap the
//! rules handle (negation, time, hypotheticals, someone else, figures of speech, agent lines).

use crate::{CallText, Category, Level, Line, Source, Speaker, triage};

/// The category `triage` gives a call of these caller lines (agent lines between them are
/// none), or "none".
fn said(lines: &[&str]) -> &'static str {
    let transcript: Vec<Line> = lines
        .iter()
        .map(|m| Line {
            by: Speaker::Caller,
            message: m,
        })
        .collect();
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

/// The category of a dialogue written as (speaker, line) pairs, 'a' for agent, 'c' for caller.
fn dialogue(lines: &[(char, &str)]) -> &'static str {
    let transcript: Vec<Line> = lines
        .iter()
        .map(|(who, m)| Line {
            by: if *who == 'a' {
                Speaker::Agent
            } else {
                Speaker::Caller
            },
            message: m,
        })
        .collect();
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

fn summary(text: &str) -> &'static str {
    let call = CallText {
        transcript: &[],
        requests: &[],
        summary: Some(text),
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

#[test]
fn plain_emergencies_are_urgent_in_both_languages() {
    assert_eq!(said(&["Jag har ramlat och kommer inte upp."]), "fall");
    assert_eq!(said(&["I've fallen and I can't get up."]), "fall");
    assert_eq!(said(&["Det trycker så över bröstet."]), "chest_pain");
    assert_eq!(said(&["ja har ont i brostet"]), "chest_pain");
    assert_eq!(said(&["I have a terrible pain in my chest"]), "chest_pain");
    assert_eq!(said(&["Jag kan inte andas ordentligt"]), "breathing");
    assert_eq!(said(&["I can't breathe"]), "breathing");
    assert_eq!(said(&["Hon sluddrar och mungipan hänger"]), "stroke_signs");
    assert_eq!(said(&["His face is drooping on one side"]), "stroke_signs");
    assert_eq!(said(&["Det blöder jättemycket från benet"]), "bleeding");
    assert_eq!(said(&["Han svimmade nyss"]), "unconscious");
    assert_eq!(said(&["Jag vill inte leva längre"]), "self_harm");
    assert_eq!(said(&["I want to end my life"]), "self_harm");
    assert_eq!(said(&["Det brinner i köket!"]), "fire_or_smoke");
    assert_eq!(
        said(&["There's smoke coming from the kitchen"]),
        "fire_or_smoke"
    );
    assert_eq!(said(&["Ring en ambulans!"]), "asks_for_ambulance");
    assert_eq!(said(&["Please call an ambulance"]), "asks_for_ambulance");
    assert_eq!(said(&["Hjälp!"]), "asks_for_ambulance");
}

#[test]
fn the_most_severe_category_wins_and_keeps_its_evidence() {
    let transcript = [
        Line {
            by: Speaker::Caller,
            message: "Jag har lite ont i ryggen.",
        },
        Line {
            by: Speaker::Agent,
            message: "Jag förstår.",
        },
        Line {
            by: Speaker::Caller,
            message: "Och igår var det bra. Nu har jag svårt att andas, faktiskt.",
        },
    ];
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    let f = triage(&call).unwrap();
    assert_eq!(
        (f.level, f.category, f.source),
        (Level::Urgent, Category::Breathing, Source::CallerLine(2))
    );
    assert_eq!(f.evidence, "Nu har jag svårt att andas, faktiskt.");
}

#[test]
fn negation_rules_out_in_its_scope_only() {
    assert_eq!(said(&["Jag har inte ont i bröstet."]), "none");
    assert_eq!(said(&["No, I didn't fall."]), "none");
    assert_eq!(said(&["Jag ramlade inte."]), "none");
    assert_eq!(
        said(&["Jag har inte ramlat men jag har ont i bröstet"]),
        "chest_pain"
    );
    assert_eq!(said(&["Jag har ont i bröstet, inte i magen"]), "chest_pain");
    assert_eq!(said(&["Nej, jag har ramlat!"]), "fall");
    assert_eq!(said(&["No, I've fallen and I need help"]), "fall");
    assert_eq!(said(&["Ingen kan hjälpa mig upp"]), "fall");
    assert_eq!(
        said(&["Jag har aldrig haft så ont i bröstet"]),
        "chest_pain"
    );
}

#[test]
fn past_and_finished_events_are_not_urgent() {
    assert_eq!(said(&["I fell last winter, it's fine now."]), "none");
    assert_eq!(
        said(&["Jag ramlade förra vintern men det är bra nu."]),
        "none"
    );
    assert_eq!(said(&["Jag hade en stroke för fem år sedan."]), "none");
    assert_eq!(
        said(&["Jag har haft ont i bröstet sedan i morse."]),
        "chest_pain"
    );
    assert_eq!(
        said(&["I've had chest pain since last night"]),
        "chest_pain"
    );
}

#[test]
fn questions_and_hypotheticals_are_not_urgent() {
    assert_eq!(said(&["What should I do if I fall?"]), "none");
    assert_eq!(said(&["Vad ska jag göra om jag ramlar?"]), "none");
    assert_eq!(said(&["Jag är rädd för att ramla."]), "low_mood");
    assert_eq!(said(&["Should I call an ambulance?"]), "asks_for_ambulance");
}

#[test]
fn someone_with_the_client_is_urgent_and_someone_elsewhere_is_not() {
    assert_eq!(said(&["Min man har svårt att andas."]), "breathing");
    assert_eq!(
        said(&["My husband is on the kitchen floor and won't wake up"]),
        "unconscious"
    );
    assert_eq!(said(&["Min syster som bor i Malmö har ramlat."]), "none");
    assert_eq!(said(&["I saw a man have a heart attack on TV."]), "none");
    assert_eq!(
        said(&["Jag tittade på TV när jag fick ont i bröstet."]),
        "chest_pain"
    );
}

#[test]
fn figures_of_speech_are_not_urgent() {
    assert_eq!(said(&["I fell asleep in my chair."]), "none");
    assert_eq!(said(&["Jag dör av skratt åt det där programmet."]), "none");
    assert_eq!(said(&["It takes my breath away."]), "none");
    assert_eq!(said(&["Det föll mig in att ringa."]), "none");
    assert_eq!(said(&["Vi ses i alla fall på torsdag."]), "none");
}

#[test]
fn agent_lines_count_only_when_the_caller_says_yes() {
    assert_eq!(dialogue(&[('a', "Har du ramlat?")]), "none");
    assert_eq!(dialogue(&[('a', "Har du ramlat?"), ('c', "Ja.")]), "fall");
    assert_eq!(dialogue(&[('a', "Har du ramlat?"), ('c', "Nej.")]), "none");
    assert_eq!(
        dialogue(&[('a', "Do you have any chest pain?"), ('c', "Yes, I do.")]),
        "chest_pain"
    );
    assert_eq!(
        dialogue(&[
            ('a', "Do you have any chest pain?"),
            ('c', "No, not at all.")
        ]),
        "none"
    );
    assert_eq!(
        dialogue(&[('a', "Du har väl inte ramlat?"), ('c', "Jo.")]),
        "fall"
    );
    assert_eq!(
        dialogue(&[('a', "Har du ramlat någon gång?"), ('c', "Ja, förra året.")]),
        "none"
    );
    assert_eq!(
        dialogue(&[('a', "Vet du vad du ska göra om du ramlar?"), ('c', "Ja.")]),
        "none"
    );
    let transcript = [
        Line {
            by: Speaker::Agent,
            message: "Okej. Har du svårt att andas?",
        },
        Line {
            by: Speaker::Caller,
            message: "Ja",
        },
    ];
    let f = triage(&CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    })
    .unwrap();
    assert_eq!(f.source, Source::CallerLine(1));
    assert_eq!(f.evidence, "Har du svårt att andas? — Ja");
}

#[test]
fn the_summary_in_third_person_speaks_of_the_client() {
    assert_eq!(summary("Brukaren har ramlat och kommer inte upp."), "fall");
    assert_eq!(summary("The client fell and cannot get up."), "fall");
    assert_eq!(
        summary("The client denies chest pain and shortness of breath."),
        "none"
    );
    assert_eq!(summary("Kunden mår bra och har inga besvär."), "none");
}

#[test]
fn concerns_are_found_when_nothing_is_urgent() {
    assert_eq!(said(&["Jag har så ont i ryggen."]), "pain");
    assert_eq!(
        said(&["I forgot to take my pills this morning."]),
        "medication"
    );
    assert_eq!(said(&["Jag har ingen aptit alls."]), "not_eating");
    assert_eq!(said(&["I feel so lonely these days."]), "low_mood");
    assert_eq!(said(&["Jag är så förvirrad."]), "confusion");
    assert_eq!(said(&["Jag mår bra, tack."]), "none");
}

/// Prints how the rules read the text in TRIAGE_TEXT (lines separated by " | ", agent lines
/// starting "A:", the summary "S:"), to see why a call comes out as it does:
/// `TRIAGE_TEXT='A: Har du ramlat? | Ja' cargo test -p triage --lib explain -- --ignored --nocapture`.
#[test]
fn explain_shows_each_line_and_the_trigger_it_found() {
    let shown = crate::explain("A:Har du ramlat? | Ja, i natt | S:The client fell.");
    assert!(shown.contains("triggers=fall"), "{shown}");
    assert!(shown.lines().count() >= 3, "{shown}");
}

/// Calls written for this crate in words of their own (not from the evaluation sets): each
/// row is the expected category ("none" for nothing) and caller lines separated by " | "
/// (a line starting "A:" is the agent's, "S:" the summary).
const PARAPHRASES: &[(&str, &str)] = &[
    // Falls.
    (
        "fall",
        "Jag har trillat i badrummet och kan inte ta mig upp",
    ),
    ("fall", "Jag ligger på köksgolvet"),
    ("fall", "Hjälp, jag har gått omkull"),
    ("fall", "jag halkade i duschen och sitter fast"),
    ("fall", "I've had a tumble in the kitchen"),
    ("fall", "I'm on the bathroom floor and can't get up"),
    ("fall", "My legs gave way and I'm on the floor"),
    ("fall", "Benen vek sig och nu sitter jag på golvet"),
    (
        "fall",
        "I slipped getting out of the bath, I think I've broken my hip",
    ),
    ("fall", "ja ramla i hallen ja kommer inte upp"),
    ("fall", "Jag föll ur sängen i natt"),
    ("fall", "I've been on the floor since last night"),
    // Chest pain.
    ("chest_pain", "Det känns som ett band runt bröstet"),
    (
        "chest_pain",
        "Jag har en konstig smärta i bröstet som strålar ut i vänster arm",
    ),
    (
        "chest_pain",
        "It feels like an elephant is sitting on my chest",
    ),
    ("chest_pain", "My chest is so tight"),
    ("chest_pain", "I've got this crushing feeling in my chest"),
    ("chest_pain", "hjärtat rusar och jag har ont i bröstet"),
    // Breathing.
    ("breathing", "Jag får ingen luft"),
    ("breathing", "Han kippar efter luft"),
    ("breathing", "I can't get my breath"),
    (
        "breathing",
        "She's struggling to breathe and her lips are blue",
    ),
    ("breathing", "Hon andas väldigt tungt och rosslar"),
    (
        "breathing",
        "I'm wheezing badly and my inhaler isn't working",
    ),
    ("breathing", "Something is stuck in my throat"),
    // Stroke signs.
    (
        "stroke_signs",
        "Min man pratar konstigt och ena sidan av ansiktet hänger",
    ),
    ("stroke_signs", "Jag kan inte röra vänster arm"),
    (
        "stroke_signs",
        "Suddenly I can't move my right arm and my speech is funny",
    ),
    ("stroke_signs", "Her words are all jumbled"),
    (
        "stroke_signs",
        "Ansiktet är snett och han förstår inte vad jag säger",
    ),
    // Bleeding.
    ("bleeding", "Jag har skurit mig och det blöder rejält"),
    ("bleeding", "There's a lot of blood coming from my leg"),
    ("bleeding", "I cut my hand and it won't stop bleeding"),
    ("bleeding", "Jag kräks blod"),
    ("bleeding", "Det forsar blod från såret"),
    // Unconscious.
    ("unconscious", "Min fru har svimmat och vaknar inte"),
    ("unconscious", "He collapsed and isn't responding"),
    ("unconscious", "I just blacked out for a moment"),
    ("unconscious", "Jag svimmade en kort stund"),
    // Self-harm.
    ("self_harm", "Jag orkar inte leva längre"),
    ("self_harm", "Det vore lika bra om jag inte fanns"),
    (
        "self_harm",
        "I've been thinking about taking all my pills at once",
    ),
    ("self_harm", "I don't see the point in going on"),
    ("self_harm", "Jag tänker ta livet av mig"),
    // Fire or smoke.
    (
        "fire_or_smoke",
        "Det luktar bränt och det kommer rök från elementet",
    ),
    ("fire_or_smoke", "The toaster's on fire"),
    ("fire_or_smoke", "My kitchen is full of smoke"),
    ("fire_or_smoke", "Spisen brinner!"),
    // Other emergencies.
    ("other_emergency", "Han har kramper i hela kroppen"),
    (
        "other_emergency",
        "Jag blev stucken av en geting och halsen svullnar",
    ),
    (
        "other_emergency",
        "There's someone trying to get in through my window",
    ),
    // Asking for an ambulance.
    ("asks_for_ambulance", "Kan ni skicka en ambulans?"),
    ("asks_for_ambulance", "Ring 112 nu!"),
    ("asks_for_ambulance", "Please, I need someone here now"),
    // Concerns.
    ("pain", "Jag har haft ont i magen i två dagar"),
    ("pain", "My knees are killing me"),
    ("not_eating", "Jag har inte ätit på två dagar"),
    ("medication", "Jag glömde mina tabletter i morse"),
    ("low_mood", "I feel so down lately"),
    ("low_mood", "Jag känner mig så ensam"),
    ("confusion", "I keep forgetting things"),
    // Negation.
    (
        "none",
        "Nej, jag har inte ramlat, jag ringde bara för att fråga om tvättiden",
    ),
    ("none", "I haven't had any chest pain"),
    ("none", "Inga problem med andningen"),
    ("none", "There's no bleeding"),
    ("none", "Nope, no falls this week"),
    ("none", "I wouldn't say I'm short of breath"),
    ("none", "Han andas normalt"),
    // Time.
    ("none", "Jag bröt höften för tre år sen"),
    ("none", "Back in 2019 I had a small stroke"),
    (
        "none",
        "Jag hade svårt att andas när jag hade covid i vintras",
    ),
    ("none", "When I was in my seventies I fell quite often"),
    ("none", "I fell over last Tuesday but I'm alright now"),
    // Hypotheticals and questions.
    ("none", "Vad händer om jag trycker på larmet?"),
    ("none", "Should I ring 112 if my chest hurts?"),
    ("none", "What would happen if I couldn't get up?"),
    ("none", "In case I have a fall, who comes?"),
    // Someone else.
    ("none", "Min granne i huset bredvid har fått en stroke"),
    ("none", "My brother in Canada had a heart attack"),
    (
        "none",
        "Min kusin ligger på sjukhus med lunginflammation och svårt att andas",
    ),
    ("breathing", "My husband is having trouble breathing"),
    (
        "bleeding",
        "Min son är här och han har skurit sig illa, det blöder mycket",
    ),
    (
        "none",
        "I was watching a programme where someone had a stroke",
    ),
    // Figures of speech.
    ("none", "I nearly died laughing"),
    ("none", "Jag höll på att dö av skratt"),
    ("none", "My heart skipped a beat when I saw the price"),
    ("none", "You'll be the death of me"),
    // Summaries.
    (
        "fall",
        "S:Brukaren uppger att hon trillade i natt och har ont i höften. Hon kommer inte upp ur sängen.",
    ),
    (
        "none",
        "S:The client reports no falls and no chest pain. Mood is good.",
    ),
    (
        "none",
        "S:Klienten berättade att hennes syster i Lund har fått en stroke.",
    ),
    // Agent questions.
    ("breathing", "A:Har du svårt att andas just nu? | Ja, lite"),
    ("none", "A:Har du svårt att andas just nu? | Nej då"),
    (
        "chest_pain",
        "A:Any pain in your chest at the moment? | Yeah",
    ),
    ("none", "A:Any pain in your chest at the moment? | No, none"),
    // A second round, written after the first was in place.
    (
        "stroke_signs",
        "Jag har fått en sån himla huvudvärk helt plötsligt, värsta jag haft",
    ),
    ("stroke_signs", "Pappa kan inte le, ena mungipan åker ner"),
    ("stroke_signs", "My wife's gone all floppy on one side"),
    (
        "stroke_signs",
        "I keep dropping things from my left hand and my face feels numb",
    ),
    ("unconscious", "Han svarar inte när jag pratar med honom"),
    (
        "unconscious",
        "She's not waking up properly, she's very drowsy",
    ),
    ("chest_pain", "Det är som ett tryck mitt i bröstet"),
    ("chest_pain", "I feel like I'm having a heart attack"),
    ("breathing", "Hon andas jättekonstigt, typ flämtar"),
    ("breathing", "Jag hostar och får inte luft"),
    ("breathing", "I'm choking on my food"),
    ("fall", "Jag har trillat ur rullstolen"),
    ("fall", "I missed the chair and landed on the floor"),
    ("fall", "Jag snavade på mattan och slog i huvudet"),
    (
        "unconscious",
        "My husband has fallen in the garden and he's not moving",
    ),
    ("fall", "I'm stuck in the bath, the water's gone cold"),
    ("bleeding", "Det blöder från huvudet efter att jag ramlade"),
    ("bleeding", "There's blood coming out of his ear"),
    ("self_harm", "Jag vill bara somna in och aldrig vakna"),
    (
        "self_harm",
        "Sometimes I think everyone would be better off without me",
    ),
    ("fire_or_smoke", "Det ryker ur tvättmaskinen"),
    ("fire_or_smoke", "Something's smouldering in the bin"),
    (
        "fire_or_smoke",
        "The fire alarm is beeping like mad and I smell smoke",
    ),
    ("other_emergency", "Det luktar gas i köket"),
    (
        "other_emergency",
        "Jag har druckit av en flaska rengöringsmedel",
    ),
    (
        "other_emergency",
        "His blood sugar is really low and he's not making sense",
    ),
    ("other_emergency", "Jag har ätit fel och läpparna svullnar"),
    (
        "asks_for_ambulance",
        "Please send someone round straight away",
    ),
    ("asks_for_ambulance", "Ring efter hjälp!"),
    ("asks_for_ambulance", "I need an ambulance"),
    ("pain", "Jag har så ont i ryggen att jag knappt kan gå"),
    ("pain", "My hip's been aching since the weekend"),
    ("not_eating", "Jag har tappat aptiten helt"),
    ("not_eating", "I've not been drinking much"),
    ("medication", "Mina tabletter är slut"),
    ("medication", "I think I took my pills twice"),
    ("low_mood", "Jag känner mig så nedstämd"),
    ("low_mood", "I've been crying a lot"),
    ("confusion", "Jag blir så förvirrad på kvällarna"),
    ("confusion", "I got lost coming back from the shop"),
    ("other", "Jag har fått ett utslag på armen"),
    ("other", "My feet are really swollen"),
    ("other", "I've had diarrhoea since yesterday"),
    ("none", "Jag har ingen feber och inget ont i bröstet"),
    ("none", "No, I'm not dizzy and my chest is fine"),
    ("none", "Jag har inte ramlat på länge"),
    ("none", "I haven't fallen since I got the frame"),
    ("none", "Han dog av en hjärtinfarkt för tio år sedan"),
    ("none", "My mother died of a stroke when I was a child"),
    (
        "none",
        "Min väninna fick en stroke i höstas, hon bor i Uppsala",
    ),
    (
        "none",
        "My neighbour's been taken to hospital with chest pains",
    ),
    ("none", "I saw an ambulance outside number 12 this morning"),
    ("none", "Jag drömde att jag ramlade ner för trappan"),
    (
        "none",
        "Det var nära att jag ramlade men jag tog tag i stolen",
    ),
    ("none", "I nearly tripped over the cat"),
    ("none", "What do I do if the smoke alarm goes off?"),
    ("none", "Om jag skulle svimma, vem kommer då?"),
    (
        "none",
        "If my husband collapses again, should I ring you or 999?",
    ),
    ("none", "I'm dying for a cuppa"),
    ("none", "Det brinner i knutarna med julklapparna"),
    (
        "none",
        "My granddaughter set the kitchen on fire once, years ago",
    ),
    ("none", "Inga problem, jag andas bra idag"),
    ("none", "A:Har du ont i bröstet? | Nej, inte alls"),
    ("fall", "A:Are you able to get up? | No"),
    ("none", "A:Is anyone with you right now? | No, I'm alone"),
    ("none", "S:Kunden nekar bröstsmärta och andfåddhet."),
    (
        "none",
        "S:The client's son fell at work last week; the client herself is fine.",
    ),
    // A third round: whole short calls in the styles of the evaluation sets.
    (
        "fall",
        "A:Hej, hur är det? | Inte så bra. Jag ligger här i hallen sedan i morse. | A:Har du ramlat? | Ja, benen bar inte.",
    ),
    (
        "fall",
        "A:Hello Mavis, how are you? | Oh, I'm a bit stuck, dear. I'm down on the carpet and I can't seem to get myself back up.",
    ),
    ("fall", "ja har ramlat i koket | kommer inte upp"),
    (
        "chest_pain",
        "A:Hur mår du? | Det är nog inget, men det trycker lite i bröstet och jag är kallsvettig.",
    ),
    (
        "chest_pain",
        "A:How are you today? | Not so good. There's a heaviness in my chest and it goes up into my jaw.",
    ),
    (
        "breathing",
        "A:Hej, hur mår du? | Jag... får... inte... luft... | ...",
    ),
    (
        "breathing",
        "My husband's gone a funny colour and he's wheezing, he can hardly get a breath.",
    ),
    (
        "stroke_signs",
        "A:Hello, how can I help? | It's my wife. She was talking and then her words came out all wrong and her face looks different on one side.",
    ),
    (
        "stroke_signs",
        "Min man tappar saker ur högerhanden och pratar sluddrigt sen en halvtimme",
    ),
    (
        "unconscious",
        "Hon sitter i fåtöljen men jag får inget svar av henne, hon är alldeles slapp.",
    ),
    (
        "unconscious",
        "S:The caller's husband collapsed in the kitchen and is not responding.",
    ),
    (
        "bleeding",
        "Jag har fallit och slagit upp ett jack i pannan, det blöder och blöder.",
    ),
    (
        "bleeding",
        "I've cut my leg on the bed frame and the blood is soaking through the towel.",
    ),
    (
        "self_harm",
        "A:Hur har veckan varit? | Tung. Jag orkar inte mer. Jag har tänkt att ta alla mina sömntabletter.",
    ),
    (
        "self_harm",
        "I just want it all to be over. I've had enough of living.",
    ),
    (
        "fire_or_smoke",
        "Det kommer svart rök ur spisen och det luktar bränt plast",
    ),
    (
        "fire_or_smoke",
        "There's a burning smell and the plug socket is black and smoking",
    ),
    (
        "other_emergency",
        "A:Hello? | Someone's been banging on my door for ages shouting and now they're trying the handle.",
    ),
    (
        "other_emergency",
        "Han har fått ett krampanfall och skakar på golvet.",
    ),
    (
        "asks_for_ambulance",
        "Jag mår inte bra alls, kan ni ringa en ambulans åt mig?",
    ),
    (
        "none",
        "A:Har du ramlat sedan sist? | Nej, nej. Jag är försiktig med mattorna nu.",
    ),
    (
        "none",
        "A:Any chest pain or breathlessness? | No, none of that, thank goodness.",
    ),
    (
        "none",
        "A:Hej Berit! | Hej. Min bror i Borås har fått en hjärtinfarkt, de opererade honom i går. Jag ska åka dit på fredag.",
    ),
    (
        "none",
        "My neighbour Doris had a fall last month and broke her wrist, so I've been doing her shopping.",
    ),
    (
        "none",
        "Jag hade en propp i benet för flera år sedan, men det är inget nu.",
    ),
    (
        "none",
        "I had a bit of a cough in the winter, but that's long gone.",
    ),
    (
        "none",
        "A:Vad kan jag hjälpa till med? | Vad ska man göra om någon får en stroke? Jag vill veta det.",
    ),
    (
        "none",
        "What's the number for the ambulance in Sweden, is it 112?",
    ),
    (
        "none",
        "Jag svimmade nästan av förvåning när jag såg räkningen!",
    ),
    ("none", "That film was so funny I nearly choked on my tea."),
    ("none", "I thought I'd die of boredom at the bingo."),
    (
        "none",
        "A:Du ramlade i förra veckan, hur är det nu? | Det är bra, jag har inte ont längre.",
    ),
    (
        "none",
        "A:Remember to press your alarm if you fall. | Yes, I will.",
    ),
    (
        "none",
        "A:Du ska inte vara rädd för att ringa 112 om du får ont i bröstet. | Nej, jag vet.",
    ),
    (
        "none",
        "The nurse said my breathing is much better since the new inhaler.",
    ),
    (
        "none",
        "I had chest pain on Sunday but the doctor checked me and it was only indigestion.",
    ),
    (
        "none",
        "Det började brinna i en kastrull i går men jag släckte med locket och allt är bra.",
    ),
    (
        "pain",
        "Jag har sån värk i knäna, det är värre när det regnar.",
    ),
    ("medication", "I've run out of my water tablets."),
    (
        "low_mood",
        "Jag har varit så ledsen sedan Gunnar dog, jag gråter varje dag.",
    ),
    (
        "confusion",
        "Mamma vet inte vilken dag det är och hon letar efter pappa som dog för tio år sen.",
    ),
    // A fourth round.
    ("fall", "Jag har ramlat och slagit mig"),
    ("fall", "Hjälp mig, jag har trillat och ligger i badrummet"),
    (
        "fall",
        "Jag sitter på toalettgolvet och kan inte resa på mig",
    ),
    (
        "chest_pain",
        "Min fru har ont i bröstet och är alldeles grå i ansiktet",
    ),
    ("chest_pain", "Det sticker i bröstet när jag andas"),
    (
        "breathing",
        "Jag har så svårt att få luft att jag inte kan prata",
    ),
    ("breathing", "Han rosslar och andas konstigt"),
    ("stroke_signs", "Hon blev plötsligt konstig i talet"),
    ("stroke_signs", "Halva ansiktet har domnat"),
    (
        "bleeding",
        "Jag har haft näsblod i över en timme och det slutar inte",
    ),
    ("bleeding", "Han hostar upp blod"),
    ("unconscious", "Hon har svimmat av och ligger på golvet"),
    ("unconscious", "Det går inte att få kontakt med honom"),
    ("self_harm", "Jag vill inte leva mer"),
    ("self_harm", "Jag har tänkt ta mitt liv"),
    ("fire_or_smoke", "Det luktar rök i trapphuset"),
    ("fire_or_smoke", "Kaffebryggaren brinner"),
    (
        "other_emergency",
        "Han har fått en allergisk reaktion och svullnar i ansiktet",
    ),
    ("other_emergency", "Någon har brutit sig in"),
    ("asks_for_ambulance", "Kan ni komma hit fort"),
    ("fall", "I've had a fall and I think my hip's broken"),
    ("fall", "I'm sprawled on the kitchen floor"),
    ("chest_pain", "My chest feels like it's being squeezed"),
    (
        "chest_pain",
        "I've got a horrible pain in the middle of my chest",
    ),
    ("breathing", "I'm really struggling for breath"),
    ("breathing", "He can't catch his breath and he's gone grey"),
    (
        "stroke_signs",
        "She's slurring her words and can't lift her arm",
    ),
    ("stroke_signs", "The right side of his face has dropped"),
    ("bleeding", "There's blood pouring from my head"),
    ("bleeding", "I'm bleeding quite a lot from my leg"),
    (
        "unconscious",
        "My husband has passed out and I can't wake him",
    ),
    ("self_harm", "I don't want to be here anymore"),
    ("self_harm", "I'm going to end it tonight"),
    ("fire_or_smoke", "The microwave is on fire"),
    ("fire_or_smoke", "I can smell burning"),
    ("other_emergency", "He's having a seizure"),
    ("other_emergency", "I think I've taken too many tablets"),
    ("asks_for_ambulance", "Can you get me an ambulance"),
    ("asks_for_ambulance", "I need help, please come"),
    ("none", "Jag har inte haft några problem med andningen"),
    ("none", "Han hade en stroke förra våren men han är pigg nu"),
    (
        "none",
        "Jag läste om en kvinna som låg på golvet i tre dagar",
    ),
    ("none", "Vad gör jag om jag inte kommer upp efter ett fall?"),
    ("none", "My sister in Leeds has been struggling to breathe"),
    ("none", "My heart's in my mouth watching the football"),
    ("none", "No, I've not had any falls or dizzy spells"),
    (
        "none",
        "The ambulance came for Mrs Jones next door this morning",
    ),
    (
        "none",
        "A:Do you feel short of breath? | Not at the moment, no",
    ),
    ("none", "A:Har du ont i bröstet? | Nej, det har jag inte"),
    ("none", "A:Is someone with you? | Yes, my daughter"),
    ("none", "I used to have angina but I've been fine for years"),
    ("none", "If the smoke alarm goes, do I ring you?"),
    (
        "low_mood",
        "Jag var rädd att jag skulle ramla i duschen, så jag satte mig",
    ),
    (
        "none",
        "Min granne berättade att hennes man har fått en hjärtinfarkt",
    ),
    // A fifth round: speech-to-text, run-on sentences, the agent's words.
    (
        "fall",
        "hej det är elsa jag har ramlat i badrummet och kommer inte upp kan ni skicka nån",
    ),
    (
        "chest_pain",
        "ja har sa ont i brostet och det stralar ut i armen",
    ),
    (
        "unconscious",
        "min man andas konstigt han svarar inte nar jag pratar med honom",
    ),
    (
        "breathing",
        "nej jag har inte ramlat men jag har svart att andas sen i morse",
    ),
    (
        "none",
        "jag ramlade forra aret men nu ar det bra jag ringer bara for att boka om tiden",
    ),
    (
        "fall",
        "i have fallen over in the hallway i cant get up please send someone",
    ),
    (
        "none",
        "no chest pain no i just want to change my appointment",
    ),
    (
        "none",
        "she fell last week but shes fine now we just need more pads",
    ),
    (
        "other_emergency",
        "Jag har tagit för många tabletter av misstag",
    ),
    ("none", "Jag råkade trycka på larmet när jag dammade"),
    ("none", "I pressed the alarm by accident, sorry"),
    (
        "none",
        "A:Many people fall in the winter, so take care on the ice. | Yes, I will.",
    ),
    (
        "fall",
        "A:So you've fallen and you can't get up, is that right? | Yes",
    ),
    ("fall", "A:Kommer du upp själv? | Nej, det går inte."),
    (
        "none",
        "A:Have you heard about our fall prevention classes? | Yes, I went last year.",
    ),
    (
        "none",
        "A:Do you know what to do if someone has a stroke? | Yes",
    ),
    // A sixth round: colloquial and elderly speech.
    ("fall", "I've come a cropper in the bathroom"),
    ("fall", "I've gone down in the hall and can't get back up"),
    ("fall", "My legs went from under me"),
    ("fall", "I'm on the floor by the bed"),
    ("fall", "I took a nasty tumble"),
    (
        "chest_pain",
        "I've got indigestion but it's really bad and going down my arm",
    ),
    ("chest_pain", "I'm all clammy and my chest is tight"),
    ("breathing", "I can't get my breath, I'm gasping"),
    ("breathing", "My breathing's gone all wrong"),
    ("breathing", "She's gone blue round the lips"),
    ("breathing", "He's choking on a bit of meat"),
    ("stroke_signs", "My mouth's gone all droopy"),
    ("stroke_signs", "I can't get my words out"),
    ("stroke_signs", "My arm's gone dead"),
    ("stroke_signs", "His speech is all slurred"),
    ("bleeding", "There's blood all over the bathroom"),
    ("bleeding", "I've cut myself badly"),
    ("unconscious", "He's out cold"),
    ("unconscious", "She keeled over"),
    ("unconscious", "I'm going to pass out"),
    ("self_harm", "I've been thinking of jumping off the balcony"),
    ("self_harm", "What's the point of carrying on"),
    ("fire_or_smoke", "The chip pan's caught fire"),
    ("fire_or_smoke", "There's smoke coming out of the telly"),
    ("other_emergency", "I left the gas on and it smells funny"),
    ("other_emergency", "I've been burgled"),
    ("other_emergency", "My sugar's really low"),
    ("asks_for_ambulance", "Get me a doctor quick"),
    ("fall", "Jag har gått i backen"),
    ("fall", "Jag har dråsat i golvet"),
    ("fall", "Jag åkte på häcken i köket"),
    ("chest_pain", "Det har hugget till i bröstet"),
    ("chest_pain", "Jag har en klump i bröstet"),
    ("breathing", "Han har satt något i halsen"),
    ("stroke_signs", "Munnen hänger på ena sidan"),
    ("bleeding", "Det blöder som bara den"),
    ("bleeding", "Jag har skurit mig djupt i handen"),
    ("unconscious", "Han har tuppat av"),
    ("unconscious", "Hon vaknar inte fast jag skakar henne"),
    ("self_harm", "Jag tänker hoppa från balkongen"),
    ("fire_or_smoke", "Det brinner i papperskorgen"),
    ("other_emergency", "Det luktar konstigt, som gas"),
    ("other_emergency", "Jag har blivit rånad"),
    ("asks_for_ambulance", "Skicka ambulans!"),
    // Urgent calls that hold a word of a rule that rules things out.
    (
        "fall",
        "Jag har ramlat och min dotter bor i Göteborg så hon kan inte komma",
    ),
    ("fall", "I've fallen, my son lives in London so I rang you"),
    (
        "chest_pain",
        "Min man har ont i bröstet, han var på sjukhuset förra veckan",
    ),
    (
        "chest_pain",
        "Jag ringde min dotter igår, nu har jag ont i bröstet",
    ),
    (
        "fall",
        "Förra året ramlade jag, och nu har jag ramlat igen och kommer inte upp",
    ),
    ("fall", "I fell last night and I'm still on the floor"),
    ("fall", "Om du kan, skicka någon, jag har ramlat"),
    (
        "fall",
        "Jag vet inte om jag har brutit höften men jag kommer inte upp",
    ),
    ("fall", "My husband died last year and now I've fallen"),
    ("breathing", "Haha, no, but seriously I can't breathe"),
    ("breathing", "I'm not joking, I can't breathe"),
    ("fall", "Jag skojar inte, jag har ramlat"),
    (
        "chest_pain",
        "Sorry to bother you, I think I'm having a heart attack",
    ),
    (
        "stroke_signs",
        "I'm not sure, but I think I've had a stroke",
    ),
    (
        "breathing",
        "Jag har inte kunnat andas ordentligt sedan i natt",
    ),
    (
        "breathing",
        "I haven't been able to breathe properly since last night",
    ),
    ("fall", "Jag har inte kunnat resa mig sedan i morse"),
    ("unconscious", "She wouldn't wake up this morning"),
    ("breathing", "I could hardly breathe"),
    ("bleeding", "It would not stop bleeding"),
    ("chest_pain", "I think I might be having a heart attack"),
    (
        "fall",
        "S:Brukaren har ramlat och kommer inte upp. Hennes dotter bor i Stockholm.",
    ),
    (
        "stroke_signs",
        "Jag kunde inte prata på en stund och munnen hängde, men det har gått över nu",
    ),
    (
        "stroke_signs",
        "My arm went numb and my speech was slurred. It's fine now though.",
    ),
    // A seventh round: traps in words of their own.
    (
        "none",
        "Jag har inga bekymmer med bröstet eller andningen, men jag vill byta tid för fotvården",
    ),
    ("none", "I've never had a stroke, touch wood"),
    (
        "none",
        "Nej, jag har inte svimmat, jag satt bara och vilade ögonen",
    ),
    (
        "none",
        "No, nobody has fallen here, it was the cat knocking things over",
    ),
    ("none", "Min mamma dog av stroke när jag var tonåring"),
    ("none", "I had a heart attack in my sixties, I'm ninety now"),
    ("none", "För några år sedan hade jag blodförgiftning"),
    ("none", "Years ago I slipped on the ice and broke my wrist"),
    ("none", "Vad ska jag göra om brandvarnaren börjar tjuta?"),
    (
        "none",
        "If I ever can't get up, should I press the red button?",
    ),
    (
        "none",
        "Ska jag ringa 112 eller er om jag får ont i bröstet?",
    ),
    (
        "none",
        "Is it true that you should chew an aspirin if you have a heart attack?",
    ),
    ("none", "Min bror i Sundsvall har ramlat och brutit armen"),
    (
        "none",
        "My friend Joan is in hospital with pneumonia, she can hardly breathe, poor thing",
    ),
    ("none", "I watched a documentary about strokes last night"),
    (
        "none",
        "Det var ett program på radion om hjärtinfarkt hos kvinnor",
    ),
    ("none", "Jag skrattade så jag nästan kissade på mig"),
    ("none", "This weather is killing me"),
    (
        "none",
        "Jag är helt död i benen efter promenaden, men det är skönt",
    ),
    (
        "none",
        "You nearly gave me a heart attack ringing so early!",
    ),
    ("none", "Brandlarmet ska provas på onsdag, sa hyresvärden"),
    ("none", "A:Har du ont i bröstet? | Nej, inte det minsta"),
    (
        "none",
        "A:Are you having any trouble breathing? | No, I'm breathing fine",
    ),
    (
        "none",
        "A:Har du tankar på att skada dig själv? | Nej, absolut inte",
    ),
    (
        "none",
        "Jag ramlade i förra månaden men nu går jag med rollator och det går bra",
    ),
    (
        "none",
        "I choked on a crisp earlier but it went down and I'm fine now",
    ),
    (
        "none",
        "Det ryckte i ögonlocket en stund men det har slutat",
    ),
    ("pain", "My knees have been aching all week"),
    (
        "medication",
        "Jag har glömt att ta mina blodtryckstabletter två dagar i rad",
    ),
    ("not_eating", "I haven't felt like eating since Sunday"),
];

/// Triages a row of `PARAPHRASES`: its category, or "none".
fn paraphrase(text: &str) -> &'static str {
    let mut transcript = Vec::new();
    let mut summary = None;
    for part in text.split(" | ") {
        if let Some(a) = part.strip_prefix("A:") {
            transcript.push(Line {
                by: Speaker::Agent,
                message: a,
            });
        } else if let Some(s) = part.strip_prefix("S:") {
            summary = Some(s);
        } else {
            transcript.push(Line {
                by: Speaker::Caller,
                message: part,
            });
        }
    }
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary,
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

#[test]
fn calls_written_apart_from_the_evaluation_sets_are_triaged_as_labelled() {
    let wrong: Vec<String> = PARAPHRASES
        .iter()
        .filter_map(|(want, text)| {
            let got = paraphrase(text);
            (got != *want).then(|| format!("expected {want}, got {got}: {text}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        PARAPHRASES.len(),
        wrong.join("\n")
    );
}

/// A third check of generality, written after the second development set and apart from both
/// sets: unseen wordings of every urgent category and of the traps, in both languages, spoken
/// and speech-to-text forms. Each row: the expected urgent category, or "calm" (no urgent
/// finding; a concern is allowed), and lines as in `PARAPHRASES`.
const UNSEEN_CALLS: &[(&str, &str)] = &[
    // Falls.
    (
        "fall",
        "Jag snubblade på mattan och slog mig, nu kommer jag inte upp",
    ),
    ("fall", "ja ramla omkull i köke å ligger på golve"),
    ("unconscious", "Jag föll ihop i hallen och benen bär inte"),
    ("fall", "Jag ramlade baklänges i hallen och benen bär inte"),
    ("unconscious", "Mamma har segnat ner i badrummet"),
    ("fall", "I took a spill in the garden and I can't get up"),
    ("unconscious", "I keeled over by the sink"),
    ("fall", "I toppled over by the sink and I'm stuck down here"),
    (
        "fall",
        "S:Client reports a fall in the bathroom, unable to weight bear.",
    ),
    (
        "fall",
        "A:Har du ramlat? | Ja, i trappan. Höften gör så ont.",
    ),
    // Unconscious.
    (
        "unconscious",
        "Min man har tuppat av och jag får ingen kontakt med honom",
    ),
    (
        "unconscious",
        "Hon svarar inte längre när jag pratar med henne",
    ),
    ("unconscious", "He passed out on the sofa and won't wake up"),
    (
        "unconscious",
        "My wife just collapsed and she's not responding",
    ),
    ("unconscious", "S:Client stopped responding mid-call."),
    // Breathing.
    ("breathing", "Jag får ingen luft, det piper när jag andas"),
    ("breathing", "jag flåsar så jag kan knappt prata"),
    ("breathing", "I'm gasping, I can barely finish a sentence"),
    (
        "breathing",
        "My COPD is much worse and the oxygen isn't helping",
    ),
    (
        "breathing",
        "A:Do you feel short of breath? | Yes, very. It started an hour ago.",
    ),
    // Chest pain.
    (
        "chest_pain",
        "Det trycker över bröstet och strålar ut i vänster arm",
    ),
    ("chest_pain", "Det är som ett skruvstäd runt bröstkorgen"),
    (
        "chest_pain",
        "It's like an elephant sitting on me, and I'm all sweaty",
    ),
    (
        "chest_pain",
        "There's a crushing feeling in the middle of me",
    ),
    (
        "chest_pain",
        "A:Har du ont i bröstet? | Ja, nu faktiskt. Det började för en stund sen.",
    ),
    // Stroke.
    (
        "stroke_signs",
        "Orden vill inte komma och vänster arm är tung",
    ),
    ("stroke_signs", "Hans mungipa hänger och han sluddrar"),
    (
        "stroke_signs",
        "I can't get my words out and my right side feels heavy",
    ),
    ("stroke_signs", "Her face has dropped on one side"),
    // Bleeding.
    ("bleeding", "Jag har spytt blod två gånger i kväll"),
    (
        "bleeding",
        "Han slog upp pannan och blodet rinner ner i ansiktet",
    ),
    (
        "bleeding",
        "I've been sick and it looks like coffee grounds",
    ),
    (
        "bleeding",
        "Blood is streaming down his face and I can't get it to stop",
    ),
    // Fire or smoke.
    (
        "fire_or_smoke",
        "Det luktar bränt plast från uttaget och det ryker",
    ),
    ("fire_or_smoke", "Det brinner i köket!"),
    (
        "fire_or_smoke",
        "Summat's burnin' behind the telly, I can smell it",
    ),
    (
        "fire_or_smoke",
        "The socket by the bed has gone black and it's sparking",
    ),
    ("fire_or_smoke", "There's smoke coming under the door"),
    // Self-harm.
    (
        "self_harm",
        "Jag vill inte va me längre, ja har sparat tabletter",
    ),
    ("self_harm", "Jag har tagit alla mina sömntabletter"),
    (
        "self_harm",
        "Det finns ett rep på vinden, jag har tänkt hänga mig",
    ),
    ("self_harm", "I've taken a handful of my sleeping pills"),
    ("self_harm", "Everyone would be better off without me"),
    ("self_harm", "I just want to be done with it all"),
    (
        "self_harm",
        "I've done something stupid, I took all the tablets at once",
    ),
    ("self_harm", "Jag vill bara försvinna, I want it to end now"),
    // Asks for ambulance and other emergencies.
    ("asks_for_ambulance", "Snälla ring en ambulans"),
    ("asks_for_ambulance", "Can you send an ambulance please"),
    (
        "other_emergency",
        "Han har krampanfall och skakar i hela kroppen",
    ),
    (
        "other_emergency",
        "My tongue and lips are swelling up after the nuts",
    ),
    // Traps: negation, past, resolved, hypothetical, other people elsewhere, figures of speech.
    (
        "calm",
        "Jag har inte ramlat, jag bara satte mig på golvet för att leta efter en knapp",
    ),
    ("calm", "I haven't had any chest pain at all"),
    ("calm", "Jag stupar i säng vid nio varje kväll"),
    (
        "calm",
        "I laughed so hard my legs nearly gave way at the panto",
    ),
    ("calm", "Jag skrattade så jag höll på att dö"),
    ("calm", "Back in the war I drove an ambulance"),
    ("calm", "Brukaren satte i halsen men hostade upp det direkt"),
    (
        "calm",
        "I burnt the toast and the smoke alarm went off, but I opened the windows and it's all clear",
    ),
    (
        "calm",
        "The smoke alarm keeps chirping, I think it's the battery",
    ),
    ("calm", "Vilka är varningstecknen på hjärtinfarkt?"),
    ("calm", "What are the signs of a stroke, dear?"),
    (
        "calm",
        "I've lit the fire in the grate, it's lovely and warm",
    ),
    ("calm", "Vi tände en brasa i kaminen i kväll"),
    ("calm", "Jag har kräkts en gång men det är bra nu"),
    (
        "calm",
        "I can't lift my arm above my head since the frozen shoulder",
    ),
    (
        "calm",
        "My neighbour's dog collapsed at the vet's last week",
    ),
    (
        "calm",
        "This crossword is driving me mad, I could jump out the window, ha!",
    ),
    ("calm", "Do I call you or 112 when the alarm goes?"),
    ("asks_for_ambulance", "Should I ring for an ambulance?"),
    // More unseen wordings (second batch).
    ("fall", "Jag snubblat och slog mig i huvudet"),
    ("fall", "jag har trilla ur sängen å kommer int upp"),
    ("fall", "Pappa har stupat i trappan"),
    ("fall", "I went down in the hallway and I can't get back up"),
    ("fall", "She's had a nasty fall in the garden"),
    ("fall", "I've been stuck on the bathroom floor for hours"),
    (
        "unconscious",
        "Han tuppade av vid middagen och är helt slapp",
    ),
    ("unconscious", "She fainted and she's still out of it"),
    ("unconscious", "He's collapsed in the kitchen"),
    (
        "breathing",
        "Jag kan inte få luft, det känns som att jag kvävs",
    ),
    (
        "breathing",
        "I can't catch my breath, my lips are going blue",
    ),
    ("breathing", "Hon andas så konstigt och rosslar"),
    (
        "chest_pain",
        "Jag har sån tryck i bröstet, det strålar upp i käken",
    ),
    (
        "chest_pain",
        "My chest feels tight and the pain goes down my left arm",
    ),
    ("chest_pain", "Det känns som en tyngd på bröstet"),
    (
        "stroke_signs",
        "Min fru pratar sluddrigt och ena sidan av ansiktet hänger",
    ),
    (
        "stroke_signs",
        "My speech has gone all funny and my arm is numb",
    ),
    (
        "stroke_signs",
        "Jag ser dubbelt och har fått plötslig huvudvärk",
    ),
    (
        "bleeding",
        "Jag har skurit mig djupt i handen och det slutar inte blöda",
    ),
    (
        "bleeding",
        "There's blood everywhere, I cut my leg on the glass",
    ),
    ("bleeding", "Jag hostar upp blod"),
    (
        "fire_or_smoke",
        "Det kommer rök från spisen och det luktar bränt",
    ),
    ("fire_or_smoke", "The kitchen is full of smoke"),
    ("fire_or_smoke", "there's flames coming out the toaster"),
    ("self_harm", "Jag orkar inte leva längre"),
    ("self_harm", "I want to end my life"),
    ("self_harm", "Jag tänker ta livet av mig i kväll"),
    ("self_harm", "I'm going to take all my pills tonight"),
    ("asks_for_ambulance", "Ring 112, snälla"),
    (
        "other_emergency",
        "He's having a fit and won't stop shaking",
    ),
    ("other_emergency", "Det luktar gas i hela lägenheten"),
    ("calm", "Jag ramlade förra året men det gick bra"),
    ("calm", "My sister had a stroke in Spain last year"),
    (
        "calm",
        "Min granne fick en hjärtinfarkt i somras, han bor i Umeå",
    ),
    ("calm", "I'm dying for a cup of tea"),
    ("calm", "Jag skrattade ihjäl mig åt programmet"),
    ("calm", "If I fell, would the alarm call you?"),
    ("calm", "Om jag skulle ramla, vad ska jag göra då?"),
    ("calm", "The nurse came and said my chest is fine now"),
    ("calm", "Brandövning på boendet i dag, alla fick gå ut"),
    ("calm", "We watched a film where a man has a heart attack"),
    ("calm", "Det var bara stekoset, inget brinner"),
    // Third batch: agent questions answered at length, notes, speech-to-text, code-switching.
    (
        "breathing",
        "A:Har du svårt att andas nu? | Ja, det blir värre och värre. Jag sitter på sängkanten.",
    ),
    (
        "stroke_signs",
        "A:Can you lift both arms? | No, the left one won't go up.",
    ),
    ("fall", "A:Kan du resa dig? | Nej."),
    (
        "unconscious",
        "S:Caller's husband found unresponsive in chair.",
    ),
    (
        "fall",
        "S:Brukaren har fallit i hallen och ligger kvar på golvet.",
    ),
    (
        "chest_pain",
        "S:Client describes central chest pressure radiating to jaw.",
    ),
    (
        "self_harm",
        "S:Brukaren uttrycker självmordstankar och har en plan.",
    ),
    (
        "bleeding",
        "ja ha blö nt nä ja ba ha blött å blött de slutar int",
    ),
    ("fall", "jag haramlat i köket"),
    (
        "fire_or_smoke",
        "Hjälp, the kitchen is on fire, jag vet inte vad jag ska göra",
    ),
    ("breathing", "I can't breathe properly, jag får ingen luft"),
    ("calm", "A:Har du ramlat? | Nej, inte alls. Jag mår fint."),
    (
        "calm",
        "A:Do you have any chest pain? | No, none at all, thank you.",
    ),
    ("calm", "S:Routine call. No falls, no pain, eating well."),
    ("calm", "S:Brukaren nekar bröstsmärta och andningsbesvär."),
    (
        "calm",
        "My grandson fell off his bike at school but he's fine",
    ),
    // Everyday sentences that hold an urgent word (the cost of the generalised lists).
    (
        "calm",
        "I take all my tablets in the morning with my porridge",
    ),
    ("calm", "Jag har tagit alla mina tabletter i dag"),
    ("calm", "The bread knife is on the table"),
    ("calm", "Det luktar svett i tvättkorgen"),
    ("calm", "I want the rash to disappear before the wedding"),
    ("calm", "Jag har bestämt mig för fisk i morgon"),
    ("calm", "I'd like to get the form in and be done with it"),
    (
        "calm",
        "I've written a letter for the council, it's on the table",
    ),
    ("calm", "Brevet från banken ligger på köksbordet"),
    ("fall", "Mum went down in the kitchen about an hour ago"),
    ("unconscious", "Jag tuppade av i duschen"),
    ("fall", "Jag ramlade omkull på gården"),
    ("calm", "The swelling in my ankle went down overnight"),
    (
        "calm",
        "Jag mår bra i alla fall, thank you, I'm fine and the weather is nice",
    ),
    ("calm", "Yes, jag har tagit my tablets, allt är bra"),
];

/// The urgent category `triage` gives a row of `UNSEEN_CALLS`, or "calm".
fn unseen(text: &str) -> &'static str {
    let category = paraphrase(text);
    Category::ALL
        .iter()
        .find(|c| c.as_str() == category && c.level() == Level::Urgent)
        .map_or("calm", |c| c.as_str())
}

#[test]
fn unseen_wordings_of_every_urgent_category_and_trap_are_triaged_as_labelled() {
    let (mut urgent, mut urgent_hit, mut calm, mut false_alarms) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for (want, text) in UNSEEN_CALLS {
        let got = unseen(text);
        if *want == "calm" {
            calm += 1;
            false_alarms += usize::from(got != "calm");
        } else {
            urgent += 1;
            urgent_hit += usize::from(got != "calm");
        }
        if got != *want {
            wrong.push(format!("expected {want}, got {got}: {text}"));
        }
    }
    println!(
        "unseen calls: {} rows, urgent {urgent_hit}/{urgent}, false alarms {false_alarms}/{calm}",
        UNSEEN_CALLS.len()
    );
    assert!(UNSEEN_CALLS.len() >= 60);
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        UNSEEN_CALLS.len(),
        wrong.join("\n")
    );
}

#[test]
fn an_agent_promising_help_now_makes_the_call_urgent_whatever_the_caller_said() {
    assert_eq!(
        dialogue(&[
            ('c', "the kitchen is all grey and the beeper is going"),
            ('a', "I'm sending help right now. Please go outside."),
        ]),
        "other_emergency"
    );
    assert_eq!(
        dialogue(&[
            ('c', "det känns så konstigt i hela mig"),
            ('a', "Jag ser till att någon kommer till dig direkt."),
        ]),
        "other_emergency"
    );
    assert_eq!(
        dialogue(&[('c', "mm ... so tired"), ('a', "Help is on the way.")]),
        "other_emergency"
    );
}

#[test]
fn an_agent_asking_explaining_or_sending_paperwork_is_no_promise_of_help() {
    assert_eq!(
        dialogue(&[
            ('c', "I wanted to ask about the price list"),
            ('a', "I'll ask the office to send you the price list."),
        ]),
        "none"
    );
    assert_eq!(
        dialogue(&[
            ('c', "vad händer om jag ramlar i natt"),
            ('a', "Om du ramlar skickar vi hjälp, tryck bara på larmet."),
        ]),
        "none"
    );
    assert_eq!(
        dialogue(&[
            ('c', "I'm fine, just lonely"),
            ('a', "Shall I send someone round to see you now?"),
            ('c', "oh no, that's all right, tomorrow is fine"),
        ]),
        "low_mood"
    );
}

#[test]
fn the_agents_promise_is_the_evidence_and_its_line_the_source() {
    let transcript = [
        Line {
            by: Speaker::Caller,
            message: "there's grey stuff everywhere",
        },
        Line {
            by: Speaker::Agent,
            message: "Stay low. I'm sending help now.",
        },
    ];
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    let f = triage(&call).expect("a finding");
    assert_eq!(f.level, Level::Urgent);
    assert_eq!(f.evidence, "I'm sending help now.");
    assert_eq!(f.source, Source::AgentLine(1));
}
