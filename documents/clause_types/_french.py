"""French clauses of each type, written by us as a French contract words them: CUAD teaches
the classifier English only, and French contracts ("Le Prestataire s'interdit d'embaucher…")
are then read from their translation in the encoder's space alone. With the type's French
label they are trained on always, as our English definitions are. ``FRENCH_OTHERS`` are
French clauses of no type (a termination for breach is no termination for convenience, the
shares a deed transfers are no assignment clause), trained on as negatives."""

from __future__ import annotations

# fmt: off
FRENCH_EXAMPLES: dict[str, tuple[str, ...]] = {
    "document_name": (
        "CONTRAT DE PRESTATION DE SERVICES INFORMATIQUES",
        "CONTRAT DE LICENCE DE LOGICIEL",
    ),
    "parties": (
        "Entre les soussignés : la société Alpha, SAS au capital de 10 000 euros, immatriculée au "
        "RCS de Lyon, ci-après « le Client », d'une part, et la société Beta, ci-après « le "
        "Prestataire », d'autre part.",
    ),
    "agreement_date": ("Fait à Paris, le 12 mars 2021, en deux exemplaires originaux.",),
    "effective_date": (
        "Le présent contrat entre en vigueur à la date de sa signature par les deux parties.",
        "Le contrat prend effet le 1er janvier 2022.",
    ),
    "expiration_date": (
        "Le présent contrat est conclu pour une durée de trois ans à compter de sa date d'entrée "
        "en vigueur.",
        "Le contrat prendra fin le 31 décembre 2024, sans autre formalité.",
        "La mission est conclue pour une période de douze mois à compter de son démarrage et "
        "prend fin à l'échéance de ce terme.",
    ),
    "renewal_term": (
        "À son terme, le contrat se renouvelle par tacite reconduction pour des périodes "
        "successives d'un an.",
    ),
    "notice_period_to_terminate_renewal": (
        "Chaque partie peut s'opposer à la reconduction du contrat par lettre recommandée avec "
        "accusé de réception adressée au moins trois mois avant l'échéance.",
    ),
    "termination_for_convenience": (
        "Chacune des parties peut résilier le présent contrat à tout moment, sans avoir à "
        "justifier d'un motif, moyennant un préavis de deux mois.",
        "Le Client peut mettre fin au contrat à sa convenance, sans indemnité, en respectant un "
        "préavis de trente jours.",
        "Le présent contrat peut être résilié par l'une ou l'autre des parties, sans motif, par "
        "lettre recommandée avec accusé de réception, sous réserve d'un préavis de trois mois.",
        "Le Client peut résilier de manière anticipée, pour convenance, tout ou partie des "
        "commandes en cours, en notifiant sa décision au Prestataire quarante-cinq jours à "
        "l'avance.",
    ),
    "governing_law": (
        "Le présent contrat est soumis au droit français.",
        "Le contrat est régi et interprété conformément à la loi française.",
    ),
    "most_favored_nation": (
        "Si le Fournisseur consent à un autre client des conditions tarifaires plus favorables, "
        "il en fait bénéficier le Client sans délai.",
    ),
    "non_compete": (
        "Pendant la durée du contrat et un an après sa fin, le Cédant s'interdit d'exercer, "
        "directement ou indirectement, une activité concurrente sur le territoire français.",
        "Le Sous-traitant s'engage à ne pas proposer ses services directement au client final du "
        "Donneur d'ordre, ni à lui faire d'offre concurrente, pendant la mission et six mois "
        "après.",
        "Le Vendeur s'interdit, pendant cinq ans, de créer, d'acquérir ou d'exploiter un fonds "
        "de commerce similaire dans un rayon de dix kilomètres.",
    ),
    "exclusivity": (
        "Le Fournisseur concède au Distributeur l'exclusivité de la distribution des produits "
        "sur le territoire.",
        "Le Client s'engage à confier exclusivement au Prestataire les prestations de "
        "maintenance.",
    ),
    "competitive_restriction_exception": (
        "L'interdiction de concurrence ne s'applique pas aux activités que le Cédant exerce à "
        "la date de signature, ni à la détention de moins de cinq pour cent d'une société cotée.",
    ),
    "no_solicit_of_customers": (
        "Le Prestataire s'interdit de démarcher ou de solliciter directement les clients que le "
        "Donneur d'ordre lui a présentés, pendant le contrat et un an après.",
        "Le Consultant s'interdit de traiter directement avec les clients auprès desquels il a "
        "été placé par la Société, pendant la durée de la mission et douze mois après.",
    ),
    "no_solicit_of_employees": (
        "Chaque partie s'interdit de solliciter, d'embaucher ou de faire travailler, directement "
        "ou par personne interposée, un salarié de l'autre partie pendant la durée du contrat "
        "et douze mois après sa fin.",
        "Le Client s'interdit de débaucher ou de tenter de débaucher les collaborateurs du "
        "Prestataire affectés aux prestations, pendant le contrat et dans l'année qui suit sa fin.",
        "Clause de non-sollicitation du personnel : aucune des parties n'engagera un salarié de "
        "l'autre partie sans son accord écrit ; à défaut, elle versera une indemnité forfaitaire "
        "égale à douze mois du dernier salaire brut de ce salarié.",
        "Le Donneur d'ordre renonce à recruter, directement ou par l'intermédiaire d'une société "
        "tierce, tout consultant mis à sa disposition par le Fournisseur, pour une durée de "
        "dix-huit mois.",
    ),
    "non_disparagement": (
        "Les parties s'interdisent tout propos dénigrant à l'égard de l'autre partie, de ses "
        "produits ou de ses dirigeants.",
    ),
    "rofr_rofo_rofn": (
        "En cas de projet de cession de ses actions, l'associé en informe les autres, qui "
        "disposent d'un droit de préférence pour les acquérir aux mêmes conditions.",
    ),
    "price_restrictions": (
        "Les prix fixés en annexe ne peuvent être augmentés pendant les deux premières années du "
        "contrat.",
    ),
    "volume_restriction": (
        "Le Licencié ne peut installer le logiciel sur plus de cinquante postes sans l'accord "
        "écrit du Concédant.",
    ),
    "covenant_not_to_sue": (
        "Le Licencié renonce à contester la validité des brevets du Concédant et à engager toute "
        "action à ce titre.",
    ),
    "change_of_control": (
        "En cas de changement de contrôle du Prestataire au sens de l'article L. 233-3 du code "
        "de commerce, le Client peut résilier le contrat de plein droit.",
    ),
    "anti_assignment": (
        "Le présent contrat ne peut être cédé ou transféré, en tout ou partie, par l'une des "
        "parties sans l'accord préalable et écrit de l'autre partie.",
    ),
    "revenue_profit_sharing": (
        "Le Distributeur reverse à l'Éditeur trente pour cent du chiffre d'affaires hors taxes "
        "réalisé sur les ventes des produits.",
    ),
    "minimum_commitment": (
        "Le Distributeur s'engage à commander chaque année un volume minimum de mille unités.",
    ),
    "audit_rights": (
        "Le Client peut faire procéder, une fois par an et à ses frais, à un audit des "
        "installations et des comptes du Prestataire par un auditeur indépendant.",
    ),
    "insurance": (
        "Le Prestataire déclare être assuré en responsabilité civile professionnelle auprès "
        "d'une compagnie notoirement solvable et en justifie à première demande.",
    ),
    "post_termination_services": (
        "À la fin du contrat, quelle qu'en soit la cause, le Prestataire assure la réversibilité "
        "des données et assiste le Client pendant trois mois dans la reprise des prestations.",
    ),
    "ip_ownership_assignment": (
        "Le Prestataire cède au Client, au fur et à mesure de leur réalisation, l'ensemble des "
        "droits de propriété intellectuelle sur les livrables, pour toute la durée des droits "
        "et pour le monde entier.",
        "Les développements spécifiques réalisés par le Prestataire deviennent la propriété "
        "exclusive du Client dès leur paiement intégral ; le Prestataire lui cède tous droits "
        "patrimoniaux d'auteur sur ceux-ci.",
    ),
    "joint_ip_ownership": (
        "Les résultats obtenus en commun sont la copropriété des parties, à parts égales.",
    ),
    "license_grant": (
        "Le Concédant concède au Licencié un droit d'utilisation du logiciel, pour ses besoins "
        "propres, pendant la durée du contrat.",
    ),
    "non_transferable_license": (
        "La licence est personnelle et incessible : le Licencié ne peut la céder ni consentir de "
        "sous-licence.",
    ),
    "affiliate_license_licensor": (
        "Le Concédant concède également la licence sur les logiciels détenus par les sociétés "
        "qu'il contrôle.",
    ),
    "affiliate_license_licensee": (
        "La licence peut être utilisée par les sociétés contrôlées par le Licencié au sens de "
        "l'article L. 233-3 du code de commerce.",
    ),
    "unlimited_license": (
        "La licence est consentie pour un nombre illimité d'utilisateurs et de postes.",
    ),
    "irrevocable_or_perpetual_license": (
        "La licence est concédée à titre perpétuel et irrévocable.",
    ),
    "source_code_escrow": (
        "Les sources du logiciel sont déposées auprès de l'Agence pour la protection des "
        "programmes ; le Client y accède en cas de défaillance de l'Éditeur.",
    ),
    "uncapped_liability": (
        "La limitation de responsabilité ne s'applique pas en cas de faute lourde ou dolosive, "
        "ni aux dommages corporels.",
    ),
    "cap_on_liability": (
        "La responsabilité totale du Prestataire au titre du contrat est limitée au montant des "
        "sommes perçues au cours des douze derniers mois.",
        "Toutes causes confondues, l'indemnisation due par le Fournisseur ne pourra excéder le "
        "prix hors taxes de la commande concernée.",
    ),
    "exclusion_of_damages": (
        "En aucun cas le Prestataire ne répond des dommages indirects, tels que la perte de "
        "chiffre d'affaires, de clientèle ou de données.",
    ),
    "warranty_disclaimer": (
        "Le logiciel est fourni en l'état, sans garantie d'aucune sorte, notamment d'adéquation "
        "à un usage particulier.",
    ),
    "exclusive_remedy": (
        "Le remplacement ou le remboursement du produit défectueux constitue le seul recours du "
        "Client au titre de la garantie.",
    ),
    "warranty_duration": (
        "Le Prestataire garantit la conformité des livrables pendant six mois à compter de leur "
        "recette.",
    ),
    "indemnification": (
        "Le Prestataire garantit le Client contre toute action de tiers fondée sur une atteinte "
        "à leurs droits et l'indemnise de toutes les condamnations prononcées.",
    ),
    "liquidated_damages": (
        "Tout retard de livraison donne lieu à une pénalité de cent euros par jour calendaire, "
        "dans la limite de dix pour cent du prix.",
    ),
    "third_party_beneficiary": (
        "Les sociétés du groupe du Client peuvent se prévaloir directement des engagements du "
        "Prestataire au titre du présent contrat.",
    ),
}

FRENCH_OTHERS: tuple[str, ...] = (
    "En cas de manquement de l'une des parties à ses obligations, non réparé dans un délai de "
    "trente jours après mise en demeure, l'autre partie peut résilier le contrat de plein droit.",
    "Le Cédant cède au Cessionnaire, qui les acquiert, les mille parts sociales qu'il détient "
    "dans la société.",
    "Le Prestataire réalise les prestations décrites en annexe conformément aux règles de l'art.",
    "Le prix des prestations est payé par virement dans les trente jours de la réception de la "
    "facture.",
    "Chaque partie s'engage à garder confidentielles les informations reçues de l'autre partie.",
    "Aucune des parties ne sera responsable d'un manquement causé par un cas de force majeure.",
    "Le Preneur paie un dépôt de garantie égal à trois mois de loyer.",
    "Le Preneur exerce dans les locaux l'activité de commerce de détail de vêtements.",
    "Tout litige relatif au présent contrat est soumis à la compétence exclusive des "
    "tribunaux de Paris.",
    "Le Prestataire peut résilier le contrat si le Client ne règle pas une facture à son "
    "échéance, quinze jours après une mise en demeure restée sans effet.",
    "Le Prestataire affecte aux prestations des collaborateurs qualifiés, placés sous son "
    "autorité hiérarchique exclusive.",
)
