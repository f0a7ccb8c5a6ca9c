/**
 * A fixed, generated search catalogue for one tenant: merchants and pools (group-buys) in French and
 * English across ~40 real French cities, plus the relevance cases run against it (the relevance spec and
 * `pnpm bench -- --only search`). Pure and deterministic: the same options give the same listings and
 * cases. Only the ids depend on the tenant, so that two tenants of one database never share a listing id.
 *
 * Every expected listing ("anchor") has distinctive words (its markers) that no generated listing uses,
 * so that "the expected hit is in the top 3" is a fair expectation; `markerCollisions` checks it.
 */
import type { GeoPoint, ListingDoc, ListingKind } from '@cagnotte/infra';

/** A listing before its embedding (what `embedListings` of the projectors takes). */
export type ListingDraft = Omit<ListingDoc, 'embedding'>;

export type CaseTag = 'exact' | 'accent-free' | 'typo' | 'partial' | 'en' | 'fr' | 'multi-word' | 'case' | 'description';

export interface RelevanceCase {
  query: string;
  /** ListingDoc id of the expected hit: `${kind}:${refId}`. */
  expectedId: string;
  kind: ListingKind;
  /** What search hits carry as `id`. */
  refId: string;
  expectedTitle: string;
  tags: CaseTag[];
  note: string;
}

export interface City {
  name: string;
  postalCode: string;
  lat: number;
  lng: number;
  /** Relative share of the listings. */
  weight: number;
}

/** Real French cities, approximate centres. Villeurbanne is 4 km from Lyon (radius tests need a neighbour). */
export const CITIES: readonly City[] = [
  { name: 'Paris', postalCode: '75011', lat: 48.8566, lng: 2.3522, weight: 12 },
  { name: 'Marseille', postalCode: '13001', lat: 43.2965, lng: 5.3698, weight: 6 },
  { name: 'Lyon', postalCode: '69002', lat: 45.764, lng: 4.8357, weight: 7 },
  { name: 'Toulouse', postalCode: '31000', lat: 43.6047, lng: 1.4442, weight: 4 },
  { name: 'Nice', postalCode: '06000', lat: 43.7102, lng: 7.262, weight: 3 },
  { name: 'Nantes', postalCode: '44000', lat: 47.2184, lng: -1.5536, weight: 3 },
  { name: 'Strasbourg', postalCode: '67000', lat: 48.5734, lng: 7.7521, weight: 3 },
  { name: 'Montpellier', postalCode: '34000', lat: 43.6108, lng: 3.8767, weight: 3 },
  { name: 'Bordeaux', postalCode: '33000', lat: 44.8378, lng: -0.5792, weight: 3 },
  { name: 'Lille', postalCode: '59000', lat: 50.6292, lng: 3.0573, weight: 3 },
  { name: 'Rennes', postalCode: '35000', lat: 48.1173, lng: -1.6778, weight: 2 },
  { name: 'Reims', postalCode: '51100', lat: 49.2583, lng: 4.0317, weight: 2 },
  { name: 'Le Havre', postalCode: '76600', lat: 49.4944, lng: 0.1079, weight: 1 },
  { name: 'Saint-Étienne', postalCode: '42000', lat: 45.4397, lng: 4.3872, weight: 2 },
  { name: 'Toulon', postalCode: '83000', lat: 43.1242, lng: 5.928, weight: 1 },
  { name: 'Grenoble', postalCode: '38000', lat: 45.1885, lng: 5.7245, weight: 2 },
  { name: 'Dijon', postalCode: '21000', lat: 47.322, lng: 5.0415, weight: 2 },
  { name: 'Angers', postalCode: '49000', lat: 47.4784, lng: -0.5632, weight: 1 },
  { name: 'Nîmes', postalCode: '30000', lat: 43.8367, lng: 4.3601, weight: 1 },
  { name: 'Villeurbanne', postalCode: '69100', lat: 45.7719, lng: 4.8902, weight: 3 },
  { name: 'Clermont-Ferrand', postalCode: '63000', lat: 45.7772, lng: 3.087, weight: 1 },
  { name: 'Le Mans', postalCode: '72000', lat: 48.0061, lng: 0.1996, weight: 1 },
  { name: 'Aix-en-Provence', postalCode: '13100', lat: 43.5297, lng: 5.4474, weight: 2 },
  { name: 'Brest', postalCode: '29200', lat: 48.3904, lng: -4.4861, weight: 1 },
  { name: 'Tours', postalCode: '37000', lat: 47.3941, lng: 0.6848, weight: 1 },
  { name: 'Amiens', postalCode: '80000', lat: 49.8941, lng: 2.2958, weight: 1 },
  { name: 'Limoges', postalCode: '87000', lat: 45.8336, lng: 1.2611, weight: 1 },
  { name: 'Annecy', postalCode: '74000', lat: 45.8992, lng: 6.1294, weight: 1 },
  { name: 'Perpignan', postalCode: '66000', lat: 42.6887, lng: 2.8948, weight: 1 },
  { name: 'Metz', postalCode: '57000', lat: 49.1193, lng: 6.1757, weight: 1 },
  { name: 'Besançon', postalCode: '25000', lat: 47.2378, lng: 6.0241, weight: 1 },
  { name: 'Orléans', postalCode: '45000', lat: 47.9029, lng: 1.9093, weight: 1 },
  { name: 'Rouen', postalCode: '76000', lat: 49.4432, lng: 1.0999, weight: 1 },
  { name: 'Caen', postalCode: '14000', lat: 49.1829, lng: -0.3707, weight: 1 },
  { name: 'Nancy', postalCode: '54000', lat: 48.6921, lng: 6.1844, weight: 1 },
  { name: 'Avignon', postalCode: '84000', lat: 43.9493, lng: 4.8055, weight: 1 },
  { name: 'La Rochelle', postalCode: '17000', lat: 46.1603, lng: -1.1511, weight: 1 },
  { name: 'Pau', postalCode: '64000', lat: 43.2951, lng: -0.3708, weight: 1 },
  { name: 'Bayonne', postalCode: '64100', lat: 43.4929, lng: -1.4748, weight: 1 },
  { name: 'Poitiers', postalCode: '86000', lat: 46.5802, lng: 0.3404, weight: 1 },
];

export const cityByName = (name: string): City => {
  const c = CITIES.find((x) => x.name === name);
  if (!c) throw new Error(`unknown fixture city ${name}`);
  return c;
};

// ---------------------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: a tiny seeded 32-bit PRNG, uniform in [0, 1). */
export const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const hashString = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

export interface Rng {
  next(): number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export const makeRng = (seed: number): Rng => {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (items) => items[int(items.length)]!, chance: (p) => next() < p };
};

/** A version-4-shaped UUID from the PRNG: deterministic, valid for a uuid column. */
const uuidFrom = (rng: Rng): string => {
  const b = Array.from({ length: 16 }, () => rng.int(256));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

const weightedCity = (rng: Rng): City => {
  const total = CITIES.reduce((n, c) => n + c.weight, 0);
  let r = rng.next() * total;
  for (const c of CITIES) {
    r -= c.weight;
    if (r < 0) return c;
  }
  return CITIES[CITIES.length - 1]!;
};

/** Within about 4 km of the centre. */
const near = (rng: Rng, c: City): GeoPoint => ({
  lat: Math.round((c.lat + (rng.next() - 0.5) * 0.07) * 1e5) / 1e5,
  lng: Math.round((c.lng + (rng.next() - 0.5) * 0.1) * 1e5) / 1e5,
});

// ---------------------------------------------------------------------------------------------------------
// Vocabulary of the generated (non-anchor) listings. None of it may contain an anchor marker.

const SURNAMES = [
  'Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent',
  'Lefebvre', 'Michel', 'Garcia', 'David', 'Bertrand', 'Roux', 'Vincent', 'Fournier', 'Morel', 'Girard', 'André', 'Mercier',
  'Dupont', 'Lambert', 'Bonnet', 'François', 'Martinez', 'Legrand', 'Garnier', 'Faure', 'Rousseau', 'Blanc', 'Guérin',
  'Muller', 'Henry', 'Roussel', 'Nicolas', 'Perrin', 'Morin', 'Mathieu', 'Clément', 'Dumont', 'Lopez', 'Fontaine',
  'Chevalier', 'Robin', 'Masson', 'Sanchez', 'Gérard', 'Nguyen', 'Boyer', 'Denis', 'Lemaire', 'Duval', 'Joly', 'Roger',
  'Roche', 'Roy', 'Noël', 'Meyer', 'Lucas', 'Meunier', 'Perez', 'Marchand', 'Dufour', 'Blanchard', 'Barbier', 'Brun',
  'Dumas', 'Brunet', 'Schmitt', 'Leroux', 'Colin', 'Fernandez', 'Renard', 'Arnaud', 'Rolland', 'Caron', 'Aubert',
  'Giraud', 'Leclerc', 'Vidal', 'Bourgeois', 'Renaud', 'Lemoine', 'Picard', 'Gaillard', 'Philippe', 'Lacroix', 'Fabre',
  'Dupuis', 'Olivier', 'Rodriguez', 'Hubert', 'Guillot', 'Rivière', 'Le Gall', 'Guillaume', 'Adam', 'Rey', 'Berger',
  'Lecomte', 'Ménard', 'Fleury', 'Deschamps', 'Carpentier', 'Julien', 'Benoît', 'Maillard', 'Marchal', 'Aubry', 'Vasseur',
  'Renault', 'Jacquet', 'Collet', 'Prévost', 'Poirier', 'Charpentier', 'Royer', 'Huet', 'Baron', 'Dupuy', 'Pons', 'Carré',
  'Rémy', 'Schneider', 'Perrot', 'Guyot', 'Barré', 'Marty', 'Cousin', 'Hoarau', 'Le Bihan', 'Tessier', 'Bouvier',
];
const FIRST_NAMES = [
  'Camille', 'Léa', 'Manon', 'Chloé', 'Inès', 'Jade', 'Louise', 'Zoé', 'Lucie', 'Élodie', 'Sophie', 'Claire', 'Anaïs',
  'Hugo', 'Lucas', 'Louis', 'Jules', 'Arthur', 'Gabriel', 'Théo', 'Nathan', 'Mathis', 'Raphaël', 'Antoine', 'Julien',
  'Nicolas', 'Sarah', 'Emma', 'Alice', 'Yasmine', 'Karim', 'Mehdi', 'Thi Lan', 'Pauline', 'Bastien', 'Quentin',
];
const PLACES = [
  'du Marché', 'de la Gare', 'du Centre', 'des Halles', 'du Port', "de l'Église", 'du Château', 'des Remparts',
  'du Vieux Pont', 'de la Place', 'du Canal', 'des Quais', 'du Lavoir', 'de la Fontaine', 'des Tilleuls', 'des Platanes',
  'du Faubourg', 'de la Colline', 'des Vignes', 'du Parc', 'de la Source', 'du Cloître', 'des Arcades', 'du Beffroi',
];
const ADJECTIVES = ['Golden', 'Little', 'Corner', 'Happy', 'Urban', 'Old Town', 'Riverside', 'Sunny', 'Honest', 'Local', 'Village', 'Market', 'Northern', 'Blue Door'];

interface Slots {
  surname: string;
  first: string;
  place: string;
  adj: string;
}

interface MerchantCategory {
  key: string;
  fr: { names: Array<(s: Slots) => string>; descriptions: string[]; categories: string[] };
  en: { names: Array<(s: Slots) => string>; descriptions: string[]; categories: string[] };
}

const MERCHANT_CATEGORIES: MerchantCategory[] = [
  {
    key: 'bakery',
    fr: {
      names: [(s) => `Boulangerie ${s.surname}`, (s) => `Boulangerie ${s.place}`, (s) => `Au Pain ${s.place}`, (s) => `Fournil ${s.first} ${s.surname}`],
      descriptions: ['Pain au levain, baguettes de tradition, croissants et viennoiseries pur beurre.', 'Boulangerie artisanale : pains spéciaux, brioches et pâtisseries du jour.'],
      categories: ['boulangerie', 'viennoiserie'],
    },
    en: {
      names: [(s) => `${s.surname} Bakery`, (s) => `The ${s.adj} Loaf`, (s) => `${s.adj} Crust Bakery`],
      descriptions: ['Sourdough loaves, baguettes and butter croissants baked every morning.', 'Artisan bakery with rye bread, brioche and seasonal tarts.'],
      categories: ['bakery'],
    },
  },
  {
    key: 'cheese',
    fr: {
      names: [(s) => `Fromagerie ${s.surname}`, (s) => `Fromagerie ${s.place}`, (s) => `La Cave à Fromages ${s.first} ${s.surname}`],
      descriptions: ['Comté, beaufort, chèvres fermiers et fromages affinés en cave.', 'Fromages au lait cru, crèmerie et plateaux sur commande.'],
      categories: ['fromagerie', 'crèmerie'],
    },
    en: {
      names: [(s) => `${s.surname} Cheese Shop`, (s) => `The ${s.adj} Cheesemonger`],
      descriptions: ['Farmhouse cheeses, aged comté and goat cheese from small producers.'],
      categories: ['cheese shop'],
    },
  },
  {
    key: 'butcher',
    fr: {
      names: [(s) => `Boucherie ${s.surname}`, (s) => `Boucherie-Charcuterie ${s.surname}`, (s) => `Boucherie ${s.place}`],
      descriptions: ["Viandes d'éleveurs locaux, charcuterie maison et volailles fermières.", 'Boucherie traditionnelle : bœuf, agneau, veau et plats cuisinés.'],
      categories: ['boucherie', 'charcuterie'],
    },
    en: {
      names: [(s) => `${s.surname} Butchers`, (s) => `The ${s.adj} Butcher`],
      descriptions: ['Grass-fed beef, free-range poultry and homemade sausages.'],
      categories: ['butcher'],
    },
  },
  {
    key: 'florist',
    fr: {
      names: [(s) => `Fleurs ${s.place}`, (s) => `Atelier floral ${s.first} ${s.surname}`, (s) => `${s.surname} Fleuriste`],
      descriptions: ['Bouquets de saison, compositions et plantes vertes, livraison locale.', 'Fleuriste : roses, orchidées, deuil et mariages.'],
      categories: ['fleuriste'],
    },
    en: {
      names: [(s) => `${s.surname} Florist`, (s) => `${s.adj} Petals`],
      descriptions: ['Seasonal bouquets, wedding flowers and house plants.'],
      categories: ['florist'],
    },
  },
  {
    key: 'wine',
    fr: {
      names: [(s) => `Cave ${s.surname}`, (s) => `Cave à vins ${s.place}`, (s) => `Le Cellier ${s.first} ${s.surname}`],
      descriptions: ['Vins naturels, bourgognes, champagnes et spiritueux.', 'Caviste : vins du Rhône et du Languedoc, whiskies, bières.'],
      categories: ['caviste', 'vins'],
    },
    en: {
      names: [(s) => `${s.surname} Wine Cellar`, (s) => `The ${s.adj} Cork Wine Shop`],
      descriptions: ['Natural wines, grower champagnes and tasting evenings.'],
      categories: ['wine shop'],
    },
  },
  {
    key: 'bike',
    fr: {
      names: [(s) => `Atelier Vélo ${s.surname}`, (s) => `Cycles ${s.surname}`, (s) => `Réparation vélo ${s.place}`],
      descriptions: ['Réparation et entretien de vélos, vélos électriques et pièces détachées.', 'Vente et réparation de vélos de ville, VTT et vélos cargo.'],
      categories: ['réparation vélo', 'cycles'],
    },
    en: {
      names: [(s) => `${s.surname} Bike Repair`, (s) => `${s.adj} Cycles`],
      descriptions: ['Bike repair, servicing, e-bikes and spare parts.'],
      categories: ['bike repair'],
    },
  },
  {
    key: 'books',
    fr: {
      names: [(s) => `Librairie ${s.surname}`, (s) => `Librairie ${s.place}`, (s) => `Bouquinerie ${s.first} ${s.surname}`],
      descriptions: ["Romans, bandes dessinées, livres jeunesse et rencontres d'auteurs.", "Librairie généraliste : polars, voyages et livres d'occasion."],
      categories: ['librairie'],
    },
    en: {
      names: [(s) => `${s.surname} Books`, (s) => `The ${s.adj} Bookshop`],
      descriptions: ['New and second-hand books, comics and author readings.'],
      categories: ['bookshop'],
    },
  },
  {
    key: 'organic',
    fr: {
      names: [(s) => `Épicerie bio ${s.surname}`, (s) => `Épicerie ${s.place}`, (s) => `La Halle Bio ${s.first} ${s.surname}`],
      descriptions: ['Produits bio en vrac, fruits et légumes de saison, épicerie fine.', 'Épicerie de quartier : produits locaux, vrac et bocaux consignés.'],
      categories: ['épicerie', 'bio'],
    },
    en: {
      names: [(s) => `${s.surname} Organic Grocer`, (s) => `${s.adj} Organic Market`],
      descriptions: ['Organic bulk foods, seasonal produce and zero-waste refills.'],
      categories: ['organic grocer'],
    },
  },
  {
    key: 'coffee',
    fr: {
      names: [(s) => `Torréfaction ${s.surname}`, (s) => `Brûlerie ${s.place}`, (s) => `Café ${s.first} ${s.surname}`],
      descriptions: ['Cafés de spécialité torréfiés sur place, grains et moutures.', 'Brûlerie artisanale : cafés du Brésil, de Colombie et du Guatemala.'],
      categories: ['torréfacteur', 'café'],
    },
    en: {
      names: [(s) => `${s.surname} Coffee Roasters`, (s) => `${s.adj} Bean Coffee`],
      descriptions: ['Specialty coffee roasted in-house, beans and brewing gear.'],
      categories: ['coffee roaster'],
    },
  },
  {
    key: 'chocolate',
    fr: {
      names: [(s) => `Chocolaterie ${s.surname}`, (s) => `Chocolats ${s.first} ${s.surname}`, (s) => `Chocolaterie ${s.place}`],
      descriptions: ['Tablettes, pralinés et ganaches, chocolat grand cru.', 'Chocolatier artisan : bonbons de chocolat, moulages et pâtes de fruits.'],
      categories: ['chocolatier'],
    },
    en: {
      names: [(s) => `${s.surname} Chocolates`, (s) => `The ${s.adj} Cocoa`],
      descriptions: ['Bean-to-bar chocolate, pralines and truffles.'],
      categories: ['chocolate shop'],
    },
  },
  {
    key: 'fish',
    fr: {
      names: [(s) => `Poissonnerie ${s.surname}`, (s) => `Poissonnerie ${s.place}`],
      descriptions: ['Poissons de la criée, coquillages et crustacés.', 'Poissonnerie : poissons entiers, filets et plateaux de fruits de mer.'],
      categories: ['poissonnerie'],
    },
    en: {
      names: [(s) => `${s.surname} Fishmonger`, (s) => `The ${s.adj} Fishmonger`],
      descriptions: ['Fresh catch of the day, shellfish and smoked fish.'],
      categories: ['fishmonger'],
    },
  },
  {
    key: 'pastry',
    fr: {
      names: [(s) => `Pâtisserie ${s.surname}`, (s) => `Pâtisserie ${s.place}`, (s) => `Pâtisserie ${s.first} ${s.surname}`],
      descriptions: ['Entremets, tartes aux fruits, macarons et gâteaux sur commande.', "Pâtisserie fine et glaces artisanales, pièces montées."],
      categories: ['pâtisserie'],
    },
    en: {
      names: [(s) => `${s.surname} Patisserie`, (s) => `The ${s.adj} Cake Shop`],
      descriptions: ['Cakes, fruit tarts and macarons made to order.'],
      categories: ['pastry shop'],
    },
  },
  {
    key: 'tea',
    fr: {
      names: [(s) => `Maison de thé ${s.surname}`, (s) => `Comptoir des thés ${s.place}`],
      descriptions: ['Thés verts, thés noirs et infusions, salon de thé.'],
      categories: ['thé', 'infusions'],
    },
    en: {
      names: [(s) => `${s.surname} Tea Room`, (s) => `The ${s.adj} Teapot`],
      descriptions: ['Loose-leaf teas, herbal infusions and a cosy tea room.'],
      categories: ['tea shop'],
    },
  },
  {
    key: 'brewery',
    fr: {
      names: [(s) => `Brasserie ${s.surname}`, (s) => `Brasserie artisanale ${s.place}`],
      descriptions: ['Bières artisanales, blondes, ambrées et IPA brassées sur place.'],
      categories: ['brasserie', 'bières'],
    },
    en: {
      names: [(s) => `${s.surname} Brewing Co.`, (s) => `${s.adj} Brewery`],
      descriptions: ['Craft beers, pale ales and stouts brewed on site.'],
      categories: ['brewery'],
    },
  },
  {
    key: 'greengrocer',
    fr: {
      names: [(s) => `Primeur ${s.surname}`, (s) => `Primeur ${s.place}`, (s) => `Au Panier ${s.place}`],
      descriptions: ['Fruits et légumes frais, producteurs de la région.'],
      categories: ['primeur', 'fruits et légumes'],
    },
    en: {
      names: [(s) => `${s.surname} Greengrocer`, (s) => `The ${s.adj} Greengrocer`],
      descriptions: ['Fresh fruit and vegetables from local farms.'],
      categories: ['greengrocer'],
    },
  },
];

interface Product {
  fr: string;
  en: string;
  unitsFr: string[];
  unitsEn: string[];
}

const PRODUCTS: Product[] = [
  { fr: 'miel de lavande', en: 'lavender honey', unitsFr: ['pot de 500 g', 'pot de 1 kg'], unitsEn: ['500 g jar', '1 kg jar'] },
  { fr: 'miel de châtaignier', en: 'chestnut honey', unitsFr: ['pot de 500 g'], unitsEn: ['500 g jar'] },
  { fr: 'café en grains bio', en: 'organic coffee beans', unitsFr: ['sachet de 1 kg', 'sachet de 250 g'], unitsEn: ['1 kg bag', '250 g bag'] },
  { fr: "huile d'olive vierge extra", en: 'extra virgin olive oil', unitsFr: ['bidon de 3 L', 'bouteille de 75 cl'], unitsEn: ['3 L tin', '75 cl bottle'] },
  { fr: 'comté AOP', en: 'comté cheese', unitsFr: ['morceau de 500 g'], unitsEn: ['500 g piece'] },
  { fr: 'chocolat noir', en: 'dark chocolate', unitsFr: ['tablette de 100 g'], unitsEn: ['100 g bar'] },
  { fr: 'légumes bio', en: 'organic vegetables', unitsFr: ['panier de 5 kg'], unitsEn: ['5 kg box'] },
  { fr: 'farine de blé T65', en: 'wheat flour', unitsFr: ['sac de 5 kg', 'sac de 25 kg'], unitsEn: ['5 kg sack'] },
  { fr: 'savon de Marseille', en: 'Marseille soap', unitsFr: ['pain de 300 g'], unitsEn: ['300 g bar'] },
  { fr: 'pommes de saison', en: 'seasonal apples', unitsFr: ['cagette de 10 kg'], unitsEn: ['10 kg crate'] },
  { fr: 'oranges à jus', en: 'juicing oranges', unitsFr: ['cagette de 10 kg'], unitsEn: ['10 kg crate'] },
  { fr: 'thé vert', en: 'green tea', unitsFr: ['boîte de 100 g'], unitsEn: ['100 g tin'] },
  { fr: 'riz de Camargue', en: 'Camargue rice', unitsFr: ['sac de 2 kg'], unitsEn: ['2 kg bag'] },
  { fr: 'pâtes fraîches', en: 'fresh pasta', unitsFr: ['barquette de 500 g'], unitsEn: ['500 g tray'] },
  { fr: 'confiture de fraises', en: 'strawberry jam', unitsFr: ['pot de 350 g'], unitsEn: ['350 g jar'] },
  { fr: 'noix du Périgord', en: 'walnuts', unitsFr: ['sachet de 1 kg'], unitsEn: ['1 kg bag'] },
  { fr: 'vin rouge', en: 'red wine', unitsFr: ['carton de 6 bouteilles'], unitsEn: ['case of 6'] },
  { fr: 'bière artisanale', en: 'craft beer', unitsFr: ['pack de 12'], unitsEn: ['12-pack'] },
  { fr: 'lentilles vertes du Puy', en: 'green lentils', unitsFr: ['sac de 1 kg'], unitsEn: ['1 kg bag'] },
  { fr: "sirop d'érable", en: 'maple syrup', unitsFr: ['bouteille de 50 cl'], unitsEn: ['50 cl bottle'] },
  { fr: 'fromage de chèvre', en: 'goat cheese', unitsFr: ['crottin'], unitsEn: ['small round'] },
  { fr: 'amandes', en: 'almonds', unitsFr: ['sachet de 1 kg'], unitsEn: ['1 kg bag'] },
  { fr: 'sel de Guérande', en: 'Guérande sea salt', unitsFr: ['sac de 1 kg'], unitsEn: ['1 kg bag'] },
  { fr: 'pommes de terre', en: 'potatoes', unitsFr: ['sac de 10 kg'], unitsEn: ['10 kg sack'] },
];

const POOL_TITLES_FR: Array<(p: Product, c: City) => string> = [
  (p) => `Commande groupée de ${p.fr}`,
  (p) => `Achat groupé : ${p.fr}`,
  (p, c) => `Commande groupée de ${p.fr} – ${c.name}`,
  (p) => `${p.fr[0]!.toUpperCase()}${p.fr.slice(1)} en commande groupée`,
];
const POOL_TITLES_EN: Array<(p: Product, c: City) => string> = [
  (p) => `Bulk order of ${p.en}`,
  (p) => `Group buy: ${p.en}`,
  (p, c) => `${p.en[0]!.toUpperCase()}${p.en.slice(1)} group order, ${c.name}`,
];
const RELAIS = ['Maison des associations', 'Local du Marché', 'Salle paroissiale', 'Tiers-lieu La Fabrique', 'Café associatif', 'Point relais de la Mairie', 'Community hall', 'Garage de la Coop'];

// ---------------------------------------------------------------------------------------------------------
// Anchors: the expected hits of the relevance cases.

interface Anchor {
  kind: ListingKind;
  title: string;
  description: string;
  /** Merchant categories or pool units. */
  extra: string[];
  city: string;
  /** Folded words or phrases no generated listing may contain. */
  markers: string[];
  cases: Array<[query: string, tags: CaseTag[], note: string]>;
}

const ANCHORS: Anchor[] = [
  {
    kind: 'merchant', title: 'Maison Délices de Montmartre', city: 'Paris', markers: ['delices', 'montmartre'],
    description: 'Pâtisserie fine : éclairs, paris-brest et tartes au citron, au pied de la butte.', extra: ['pâtisserie'],
    cases: [
      ['Maison Délices de Montmartre', ['exact', 'fr', 'multi-word'], 'the exact name, accents and all'],
      ['delices montmartre', ['accent-free', 'multi-word'], 'without accents, without the article'],
      ['MAISON DELICES', ['case', 'accent-free'], 'upper case, no accents'],
    ],
  },
  {
    kind: 'merchant', title: 'Boulangerie Kervella', city: 'Brest', markers: ['kervella'],
    description: 'Pain au levain cuit au feu de bois, kouign-amann et far breton.', extra: ['boulangerie'],
    cases: [
      ['boulangrie kervella', ['typo', 'fr'], 'missing e in boulangerie'],
      ['boulan kerv', ['partial'], 'two word prefixes'],
      ['Kervela', ['typo'], 'the surname with one l'],
    ],
  },
  {
    kind: 'merchant', title: 'Fromagerie des Aravis', city: 'Annecy', markers: ['aravis'],
    description: 'Reblochon fermier, tomme de Savoie et abondance affinés en cave.', extra: ['fromagerie'],
    cases: [
      ['fromagrie aravis', ['typo', 'fr'], 'missing e in fromagerie'],
      ['Fromagerie des Aravis', ['exact', 'fr'], 'exact name'],
      ['reblochon aravis', ['description', 'multi-word'], 'a product of the description and the name'],
    ],
  },
  {
    kind: 'merchant', title: 'Épicerie Fine Sauvageon', city: 'Lyon', markers: ['sauvageon'],
    description: 'Épicerie fine : conserves de la mer, huiles, vinaigres et condiments.', extra: ['épicerie fine'],
    cases: [
      ['epicerie sauvageon', ['accent-free', 'fr'], 'épicerie typed without its accent'],
      ['Épicerie fine Sauvageon', ['exact', 'case'], 'exact name, different case'],
    ],
  },
  {
    kind: 'merchant', title: 'Pedal Doctor Bike Repair', city: 'Bordeaux', markers: ['pedal', 'doctor'],
    description: 'Bike repair while you wait: punctures, brakes, gears and e-bike servicing.', extra: ['bike repair'],
    cases: [
      ['pedal doctor', ['en', 'exact'], 'brand name'],
      ['bike repair pedal doctr', ['typo', 'en', 'multi-word'], 'doctor misspelt, with the generic words'],
    ],
  },
  {
    kind: 'merchant', title: "Librairie L'Œil Curieux", city: 'Toulouse', markers: ['curieux'],
    description: 'Librairie indépendante : romans, essais, bandes dessinées et rencontres.', extra: ['librairie'],
    cases: [
      ['oeil curieux', ['accent-free'], 'the œ ligature typed as oe'],
      ["librairie l'œil curieux", ['exact', 'case'], 'exact name in lower case'],
    ],
  },
  {
    kind: 'merchant', title: 'The Dusty Quill Bookshop', city: 'Lille', markers: ['dusty', 'quill'],
    description: 'Second-hand and rare books, poetry and old maps.', extra: ['bookshop'],
    cases: [
      ['dusty quill', ['en'], 'brand words'],
      ['dusty quil books', ['typo', 'en', 'multi-word'], 'quill with one l'],
    ],
  },
  {
    kind: 'merchant', title: 'Cave Les Vendangeurs Masqués', city: 'Reims', markers: ['vendangeurs', 'masques'],
    description: 'Champagnes de vignerons, vins nature et dégustations le samedi.', extra: ['caviste'],
    cases: [
      ['vendangeurs masques', ['accent-free', 'fr'], 'masqués without accent'],
      ['cave vendangeur', ['partial', 'fr'], 'singular of vendangeurs'],
    ],
  },
  {
    kind: 'merchant', title: 'Ngoma Coffee Roasters', city: 'Montpellier', markers: ['ngoma', 'burundi', 'rwanda'],
    description: 'Single-origin coffee from Burundi and Rwanda, roasted every week.', extra: ['coffee roaster'],
    cases: [
      ['ngoma coffee', ['en'], 'brand + generic word'],
      ['ngoma cofee roasters', ['typo', 'en', 'multi-word'], 'coffee with one f'],
      ['burundi coffee', ['description', 'en'], 'origin named only in the description'],
    ],
  },
  {
    kind: 'merchant', title: 'Boucherie Tournebride', city: 'Dijon', markers: ['tournebride'],
    description: 'Charolais, volailles de Bresse et charcuterie maison.', extra: ['boucherie'],
    cases: [
      ['boucheri tournebride', ['typo', 'fr'], 'boucherie without its final e'],
      ['tournebr', ['partial'], 'prefix of the name'],
    ],
  },
  {
    kind: 'merchant', title: 'Atelier Floral Pivoine et Capucine', city: 'Rennes', markers: ['pivoine', 'capucine'],
    description: 'Fleuriste : bouquets champêtres, fleurs séchées et ateliers de composition.', extra: ['fleuriste'],
    cases: [
      ['pivoine capucine', ['multi-word', 'fr'], 'the two flower names'],
      ['PIVOINE ET CAPUCINE', ['case'], 'upper case'],
    ],
  },
  {
    kind: 'merchant', title: 'Chocolaterie Xocolatl', city: 'Bayonne', markers: ['xocolatl'],
    description: "Chocolat de Bayonne travaillé à l'ancienne, tablettes et bouchées.", extra: ['chocolatier'],
    cases: [
      ['choco xocolatl', ['partial'], 'choco for chocolaterie'],
      ['chocolaterie xocolatl', ['exact'], 'exact name'],
      ['xocol', ['partial'], 'prefix of the brand'],
    ],
  },
  {
    kind: 'merchant', title: 'Poissonnerie La Marée Bleue', city: 'La Rochelle', markers: ['maree', 'bleue'],
    description: 'Poissons de petite pêche, huîtres et moules de bouchot.', extra: ['poissonnerie'],
    cases: [
      ['maree bleue', ['accent-free'], 'marée without accent'],
      ['poissonerie la maree bleue', ['typo', 'accent-free', 'multi-word'], 'poissonnerie with one n'],
    ],
  },
  {
    kind: 'merchant', title: 'Green Leaf Organic Grocer', city: 'Strasbourg', markers: ['green leaf'],
    description: 'Organic groceries, bulk refills and local vegetables.', extra: ['organic grocer'],
    cases: [
      ['green leaf organic', ['en', 'multi-word'], 'brand + generic word'],
      ['GREEN LEAF GROCER', ['case', 'en'], 'upper case'],
      ['greenleaf', ['typo', 'en'], 'the two brand words run together'],
    ],
  },
  {
    kind: 'merchant', title: 'Brasserie Artisanale Houblonnière du Vercors', city: 'Grenoble', markers: ['houblonniere', 'vercors'],
    description: 'Bières de montagne brassées au Vercors : blanche, ambrée, IPA.', extra: ['brasserie'],
    cases: [
      ['houblonniere vercors', ['accent-free', 'fr'], 'houblonnière without accent'],
      ['brasserie vercors', ['multi-word', 'fr'], 'generic word + place'],
    ],
  },
  {
    kind: 'merchant', title: 'Salon de Thé Yuzu & Matcha', city: 'Paris', markers: ['yuzu', 'matcha'],
    description: 'Thés japonais, pâtisseries au matcha et au yuzu.', extra: ['salon de thé'],
    cases: [
      ['yuzu matcha', ['multi-word'], 'the two flavours'],
      ['salon de the yuzu', ['accent-free', 'fr'], 'thé without accent'],
    ],
  },
  {
    kind: 'merchant', title: "Primeur Les Jardins d'Ésope", city: 'Nice', markers: ['esope', 'menton'],
    description: 'Fruits et légumes de saison, agrumes de Menton.', extra: ['primeur'],
    cases: [
      ["jardins d'esope", ['accent-free'], 'Ésope without accent'],
      ['jardin esope', ['partial', 'accent-free'], 'singular, no apostrophe'],
    ],
  },
  {
    kind: 'pool', title: 'Commande groupée de miel de lavande du Ventoux', city: 'Avignon', markers: ['ventoux'],
    description: 'Miel de lavande récolté au pied du mont Ventoux.', extra: ['pot de 500 g'],
    cases: [
      ['miel lavande ventoux', ['multi-word', 'fr'], 'many lavender honey pools; one from the Ventoux'],
      ['commande groupee miel ventoux', ['accent-free', 'multi-word'], 'groupée without accent'],
    ],
  },
  {
    kind: 'pool', title: 'Bulk order of Sidamo organic coffee beans', city: 'Lyon', markers: ['sidamo'],
    description: 'Ethiopian Sidamo beans roasted to order.', extra: ['1 kg bag'],
    cases: [
      ['sidamo coffee beans', ['en', 'multi-word'], 'origin + product'],
      ['sidamo cofee', ['typo', 'en'], 'coffee with one f'],
      ['Bulk Order Sidamo', ['case', 'en'], 'title case'],
    ],
  },
  {
    kind: 'pool', title: "Achat groupé d'huile d'olive de Nyons AOP", city: 'Avignon', markers: ['nyons', 'tanche'],
    description: "Huile d'olive de Nyons, variété tanche.", extra: ['bidon de 3 L'],
    cases: [
      ['huile olive nyons', ['accent-free', 'multi-word'], 'without the elisions'],
      ["huile d'olive de Nyons", ['exact', 'fr'], 'as written'],
    ],
  },
  {
    kind: 'pool', title: 'Comté 24 mois de la fruitière de Mouthe', city: 'Besançon', markers: ['mouthe', 'fruitiere'],
    description: 'Comté AOP affiné 24 mois, morceaux sous vide.', extra: ['morceau de 1 kg'],
    cases: [
      ['comte 24 mois mouthe', ['accent-free', 'multi-word'], 'comté without accent, with a number'],
      ['fruitiere mouthe', ['accent-free'], 'fruitière without accent'],
    ],
  },
  {
    kind: 'pool', title: 'Panier de légumes bio de la ferme de Brocéliande', city: 'Rennes', markers: ['broceliande'],
    description: 'Paniers hebdomadaires de légumes bio cultivés en lisière de forêt.', extra: ['panier de 5 kg'],
    cases: [
      ['legumes broceliande', ['accent-free', 'multi-word'], 'no accents'],
      ['panier broceliande', ['fr'], 'generic word + place'],
      ['Brocéliande', ['exact'], 'the place alone, with accent'],
    ],
  },
  {
    kind: 'pool', title: 'Tarocco blood oranges from Sicily, group order', city: 'Marseille', markers: ['tarocco', 'sicily'],
    description: 'Blood oranges in 10 kg crates, shipped from Sicily.', extra: ['10 kg crate'],
    cases: [
      ['tarocco oranges', ['en'], 'variety + fruit; many orange pools exist'],
      ['blood oranges tarocco', ['en', 'multi-word'], 'words in another order'],
      ['taroco', ['typo'], 'tarocco with one c'],
    ],
  },
  {
    kind: 'pool', title: "Commande groupée de savon d'Alep au laurier", city: 'Marseille', markers: ['alep', 'laurier'],
    description: "Savon d'Alep à 40 % d'huile de baie de laurier.", extra: ['pain de 200 g'],
    cases: [
      ['savon alep', ['fr'], 'many savon de Marseille pools exist'],
      ["savon d'alep laurier", ['multi-word', 'fr'], 'lower case'],
    ],
  },
  {
    kind: 'pool', title: 'Farine T80 du Moulin Brûlevent', city: 'Orléans', markers: ['brulevent'],
    description: 'Farine de meule bio T80 du moulin.', extra: ['sac de 5 kg', 'sac de 25 kg'],
    cases: [
      ['moulin brulevent', ['accent-free'], 'brûlevent without accent'],
      ['farine brulevent t80', ['multi-word'], 'product, mill, type'],
    ],
  },
  {
    kind: 'pool', title: 'Group buy: Darjeeling first flush tea', city: 'Paris', markers: ['darjeeling', 'castleton'],
    description: 'First flush Darjeeling from the Castleton estate.', extra: ['100 g tin'],
    cases: [
      ['darjeeling first flush', ['en', 'multi-word'], 'as a tea lover types it'],
      ['darjeling', ['typo'], 'one e missing'],
    ],
  },
  {
    kind: 'pool', title: 'Achat groupé de chocolat noir Criollo du Venezuela', city: 'Toulouse', markers: ['criollo', 'venezuela'],
    description: 'Chocolat noir 72 % Criollo.', extra: ['tablette de 100 g'],
    cases: [
      ['choco criollo', ['partial'], 'choco for chocolat; many dark chocolate pools exist'],
      ['chocolat criollo venezuela', ['multi-word', 'fr'], 'product, variety, origin'],
    ],
  },
  {
    kind: 'pool', title: "Piment d'Espelette AOP en commande groupée", city: 'Bayonne', markers: ['espelette'],
    description: "Piment d'Espelette en poudre, récolte de l'année.", extra: ['pot de 40 g'],
    cases: [
      ['piment espelette', ['fr'], 'without the elision'],
      ['espelette pepper', ['en'], 'English query for a French listing: only "espelette" is shared'],
    ],
  },
  {
    kind: 'pool', title: 'Huîtres de Marennes-Oléron, commande de Noël', city: 'La Rochelle', markers: ['marennes', 'oleron'],
    description: 'Huîtres fines de claire numéro 3, en bourriches.', extra: ['bourriche de 48'],
    cases: [
      ['huitres marennes oleron', ['accent-free', 'multi-word'], 'no accents, no hyphen'],
      ['HUÎTRES MARENNES', ['case'], 'upper case with accent'],
    ],
  },
  {
    kind: 'pool', title: "Cidre fermier du Pays d'Auge", city: 'Caen', markers: ['pays d auge'],
    description: 'Cidre brut et poiré fermiers de Normandie.', extra: ['caisse de 6 bouteilles'],
    cases: [
      ["cidre pays d'auge", ['fr', 'multi-word'], 'as written, lower case'],
      ['cidre fermier auge', ['fr', 'multi-word'], 'without pays'],
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------
// Generation

export interface CatalogueOptions {
  tenantId: string;
  /** Total listings, anchors included (at least the number of anchors). */
  count: number;
  seed?: number;
  /** createdAt is relative to this instant (ms), so freshness does not fade as the fixture ages. */
  now: number;
}

export interface Catalogue {
  listings: ListingDraft[];
  cases: RelevanceCase[];
  /** Listing id → markers, for the anchors. */
  markers: Map<string, string[]>;
}

const DAY_MS = 86_400_000;

/** Lower case, accents and œ folded, punctuation to spaces: close to cg_fold plus word splitting. */
export const foldForCheck = (s: string): string =>
  s.toLowerCase().normalize('NFKD').replace(/\p{M}+/gu, '').replace(/œ/g, 'oe').replace(/æ/g, 'ae').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

const mkListing = (
  o: { id: string; tenantId: string; kind: ListingKind; title: string; text: string; city: City; location: GeoPoint | null; featured: boolean; popularity: number; createdAt: string },
): ListingDraft => ({
  id: `${o.kind}:${o.id}`,
  tenantId: o.tenantId,
  kind: o.kind,
  refId: o.id,
  title: o.title,
  text: o.text,
  featured: o.featured,
  popularity: o.popularity,
  createdAt: o.createdAt,
  location: o.location,
  postalCode: o.location ? o.city.postalCode : null,
  card: o.kind === 'merchant' ? { id: o.id, name: o.title, city: o.city.name, postalCode: o.city.postalCode } : { id: o.id, title: o.title, city: o.city.name },
  version: 1,
});

/** Featured about 5 %, popularity heavy-tailed (0–150), age 0–720 days: the same draw for anchors and the rest. */
const signals = (rng: Rng, now: number) => ({
  featured: rng.chance(0.05),
  popularity: Math.floor(Math.exp(rng.next() * 5)) - 1,
  createdAt: new Date(now - Math.floor(rng.next() * 720 * DAY_MS)).toISOString(),
});

export const generateCatalogue = (options: CatalogueOptions): Catalogue => {
  const { tenantId, count, now } = options;
  const seed = options.seed ?? 20_240_611;
  if (count < ANCHORS.length) throw new Error(`the catalogue needs at least ${ANCHORS.length} listings (its anchors)`);
  const rng = makeRng(seed);
  const ids = makeRng((seed ^ hashString(tenantId)) >>> 0);
  const anchors: ListingDraft[] = [];
  const generated: ListingDraft[] = [];
  const cases: RelevanceCase[] = [];
  const markers = new Map<string, string[]>();

  for (const a of ANCHORS) {
    const city = cityByName(a.city);
    const s = signals(rng, now);
    const refId = uuidFrom(ids);
    const text =
      a.kind === 'merchant'
        ? [a.description, a.extra.join(' '), city.name, city.postalCode].join(' ')
        : [a.description, a.extra.join(' '), `${rng.pick(RELAIS)} ${city.name} ${city.postalCode}`, `${rng.pick(FIRST_NAMES)} ${rng.pick(SURNAMES)}`].join(' ');
    // Anchors get the ordinary draw of signals, except featured: an expected hit must not win by being promoted.
    const l = mkListing({ id: refId, tenantId, kind: a.kind, title: a.title, text, city, location: near(rng, city), ...s, featured: false });
    anchors.push(l);
    markers.set(l.id, a.markers);
    for (const [query, tags, note] of a.cases) cases.push({ query, expectedId: l.id, kind: a.kind, refId, expectedTitle: a.title, tags, note });
  }

  while (generated.length < count - ANCHORS.length) {
    const city = weightedCity(rng);
    const english = rng.chance(0.35);
    const s = signals(rng, now);
    const refId = uuidFrom(ids);
    if (rng.chance(0.6)) {
      const cat = rng.pick(MERCHANT_CATEGORIES);
      const lang = english ? cat.en : cat.fr;
      const slots: Slots = { surname: rng.pick(SURNAMES), first: rng.pick(FIRST_NAMES), place: rng.pick(PLACES), adj: rng.pick(ADJECTIVES) };
      const title = rng.pick(lang.names)(slots);
      const text = [rng.pick(lang.descriptions), lang.categories.join(' '), city.name, city.postalCode].join(' ');
      generated.push(mkListing({ id: refId, tenantId, kind: 'merchant', title, text, city, location: near(rng, city), ...s }));
    } else {
      const p = rng.pick(PRODUCTS);
      const title = english ? rng.pick(POOL_TITLES_EN)(p, city) : rng.pick(POOL_TITLES_FR)(p, city);
      const organiser = `${rng.pick(FIRST_NAMES)} ${rng.pick(SURNAMES)}`;
      const description = english
        ? `Group order of ${p.en}, delivered to ${city.name}. Pick-up at the relay point.`
        : `Commande groupée de ${p.fr} livrée à ${city.name}, retrait au point relais.`;
      const located = rng.chance(0.85);
      const text = [description, (english ? p.unitsEn : p.unitsFr).join(' '), located ? `${rng.pick(RELAIS)} ${city.name} ${city.postalCode}` : '', organiser].filter(Boolean).join(' ');
      generated.push(mkListing({ id: refId, tenantId, kind: 'pool', title, text, city, location: located ? near(rng, city) : null, ...s }));
    }
  }
  // Anchors at random places, not first: insertion order is heap order, and no engine should be helped by it.
  const at = new Map<number, ListingDraft>();
  for (const a of anchors) {
    let i = rng.int(count);
    while (at.has(i)) i = (i + 1) % count;
    at.set(i, a);
  }
  let next = 0;
  const listings = Array.from({ length: count }, (_, i) => at.get(i) ?? generated[next++]!);
  return { listings, cases, markers };
};

/**
 * Fairness check: generated listings that contain an anchor's marker (as whole folded words). Empty means every
 * expected hit is the only listing carrying its distinctive words.
 */
export const markerCollisions = (catalogue: Catalogue): Array<{ listing: string; title: string; marker: string; anchor: string }> => {
  const out: Array<{ listing: string; title: string; marker: string; anchor: string }> = [];
  const all = [...catalogue.markers.entries()].flatMap(([anchor, ms]) => ms.map((m) => ({ anchor, marker: ` ${m} ` })));
  for (const l of catalogue.listings) {
    if (catalogue.markers.has(l.id)) continue;
    const folded = ` ${foldForCheck(`${l.title} ${l.text}`)} `;
    for (const { anchor, marker } of all) if (folded.includes(marker)) out.push({ listing: l.id, title: l.title, marker: marker.trim(), anchor });
  }
  return out;
};

/** Extra queries for load tests: generic words, typos and prefixes, mixed with the relevance queries. */
export const benchQueries = (cases: RelevanceCase[], n: number, seed = 7): string[] => {
  const rng = makeRng(seed);
  const generic = [
    'boulangerie', 'boulangrie', 'fromagerie', 'fromagrie', 'boucherie', 'fleuriste', 'caviste', 'librairie', 'epicerie bio',
    'torrefaction', 'chocolaterie', 'choco', 'boulan', 'poissonnerie', 'patisserie', 'miel', 'miel de lavande', 'commande groupee',
    'huile d olive', 'cafe en grains', 'bakery', 'sourdough', 'cheese shop', 'bike repair', 'bookshop', 'organic grocer',
    'coffee roasters', 'lavender honey', 'bulk order', 'dark chocolate', 'olive oil', 'green tea', 'craft beer', 'velo',
    'reparation velo', 'fruits et legumes', 'savon de marseille', 'comte', 'vin rouge', 'biere artisanale', 'the vert',
  ];
  const typo = (w: string) => {
    if (w.length < 5) return w;
    const i = 1 + rng.int(w.length - 2);
    return rng.chance(0.5) ? w.slice(0, i) + w.slice(i + 1) : w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng.next();
    if (r < 0.35) out.push(rng.pick(cases).query);
    else if (r < 0.6) out.push(rng.pick(generic));
    else if (r < 0.75) out.push(typo(rng.pick(generic)));
    else if (r < 0.85) out.push(`${rng.pick(generic)} ${rng.pick(CITIES).name.toLowerCase()}`);
    else if (r < 0.93) out.push(rng.pick(SURNAMES).toLowerCase());
    else out.push(rng.pick(generic).slice(0, 4));
  }
  return out;
};
