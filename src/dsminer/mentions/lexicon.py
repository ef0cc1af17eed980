"""The words the dataset-name rules read, in one place: how papers of any field speak of data, and the names
that are never datasets (metrics, models, tasks, languages, venues, hardware, organisations, places).

A pattern or list here is the only copy: the candidate finder, the cleaning of names, the selection and the
sentence cues import it. The data vocabulary is not one field's: a cohort, a survey, a registry, a reanalysis,
an archive or a catalogue is data as much as a corpus or a benchmark is.
"""

from __future__ import annotations

import re

# The nouns that call a body of data data, in any field ("the X dataset", "the X cohort", "the X reanalysis").
DATA_NOUN_WORDS = (r"data ?sets?|corpus|corpora|benchmarks?|tree ?banks?|collections?|databases?|data ?bases?|"
                   r"cohorts?|surveys?|registr(?:y|ies)|reanalys[ie]s|archives?|catalog(?:ue)?s?|atlas(?:es)?|"
                   r"census(?:es)?|data releases?|repositor(?:y|ies)|microdata")
# As a group to join into other patterns, case-blind whatever their own flags.
DATA_NOUN_GROUP = rf"(?i:{DATA_NOUN_WORDS})"
DATA_NOUN = re.compile(rf"\b(?:{DATA_NOUN_WORDS})\b", re.I)
# A data noun or the word "data" itself: the alternation to join into other patterns, and anywhere in a text.
DATA_WORD_WORDS = rf"{DATA_NOUN_WORDS}|data"
DATA_WORD = re.compile(rf"\b(?:{DATA_WORD_WORDS})\b", re.I)
# A data noun ending a name: the bare name before it is how the paper often writes it ("X cohort" and "X").
DATA_NOUN_END = re.compile(rf"\s+{DATA_NOUN_GROUP}$")
# What a name may end with and still name the same data, for matching names: a data noun, "data" or "study" ("the
# X Panel study" is "the X Panel", "X claims data" is "X claims").
NAME_END_NOUN = re.compile(rf"\s+(?:{DATA_NOUN_GROUP}|data|study)$", re.I)
# The data nouns that can head a list of names ("the datasets: A, B and C", "corpora such as X").
LIST_NOUN_WORDS = r"data ?sets?|corpora|benchmarks?|databases?|cohorts?|surveys?|catalog(?:ue)?s?|archives?"
# Verbs that say data was taken from a named source ("drawn from X", "retrieved from the X database").
SOURCE_VERBS = (r"obtained|taken|drawn|retrieved|downloaded|extracted|collected|sourced|derived|sampled|selected|"
                r"recruited|acquired|compiled|gathered|come|comes|came")

# What a count of data counts ("4,000 images", "502,000 participants", "45,229 stars"), in any field.
UNIT_NOUNS = (r"images|sentences|documents|samples|examples|questions|articles|reviews|tweets|videos|pairs|tokens|"
              r"utterances|dialogues|recordings|instances|annotations|passages|queries|classes|categories|speakers|"
              r"hours|words|clips|scenes|participants|patients|subjects|individuals|respondents|households|cases|"
              r"records|observations|stars|galaxies|species|cells|genes|sequences|sites|stations|years")

# Names and phrases that name no particular dataset.
GENERIC_NAMES = frozenset(
    {"data", "dataset", "datasets", "data set", "data sets", "corpus", "corpora", "benchmark", "benchmarks",
     "news", "science", "text", "texts", "images", "image", "videos", "video", "audio", "training set",
     "test set", "dev set", "validation set", "training data", "test data", "none", "n/a", "na", "null",
     "unknown", "unspecified", "other", "our dataset", "the dataset", "this dataset", "our data", "database",
     "survey", "cohort", "registry", "archive", "catalog", "catalogue", "census", "repository", "microdata",
     "internet", "the internet", "world wide web"}
)
# Words that, before a data noun, say nothing of which data it is ("synthetic data", "the full dataset", "a large
# text dataset"): determiners, sizes, splits, provenance in general and the bare kinds of data.
GENERIC_MODIFIERS = frozenset(
    "our the a an this that these those their its your my each every all both any some such same other another "
    "new original raw real simulated synthetic generated training train test testing dev development validation "
    "held-out evaluation full whole entire large small public private additional external internal existing "
    "available standard final first second third present current following above previous different two three "
    "several many multiple single text texts image images video videos audio speech tabular labelled labeled "
    "annotated unlabelled unlabeled sample".split()
)
METRICS = frozenset(
    "accuracy acc precision recall f1 f1score fscore f1measure fmeasure bleu rouge rougel meteor cider spice "
    "perplexity ppl auc rocauc auroc map mrr ndcg em exactmatch errorrate wer cer las uas psnr ssim iou miou "
    "top1 top5 top1accuracy top5accuracy mse rmse mae pearson spearman kappa".split()
)
MODELS = frozenset(
    "bert roberta albert distilbert electra xlnet gpt gpt2 gpt3 gpt4 t5 bart elmo lstm bilstm gru rnn cnn "
    "transformer transformers resnet vgg alexnet inception densenet mobilenet efficientnet vit unet yolo "
    "word2vec glove svm crf mlp gan vae seq2seq attention adam sgd dropout softmax logisticregression "
    "randomforest naivebayes xgboost".split()
)
TASKS = frozenset(
    "classification translation machinetranslation parsing summarization questionanswering qa ner "
    "namedentityrecognition postagging tagging sentimentanalysis languagemodeling segmentation detection "
    "objectdetection recognition retrieval generation textclassification imageclassification "
    "naturallanguageinference nli".split()
)
# Tasks written as words after a dataset's name ("X NER", "Y classification"): the data of that task.
TASK_WORDS = frozenset(
    "classification translation parsing summarization tagging detection recognition retrieval generation "
    "segmentation ner pos".split()
)
# Acronyms of hardware, fields and venues, and words that open captions: capitalised like dataset names, never datasets.
NOT_DATASETS = frozenset(
    "GPU GPUs CPU CPUs TPU TPUs NLP AI ML CV RL SOTA API APIs URL PDF RAM IEEE ACM ACL EMNLP NAACL EACL COLING "
    "CVPR ICCV ECCV ICML ICLR NeurIPS NIPS AAAI IJCAI KDD SIGIR WWW USA UK EU OOD IID LLM LLMs GNN GNNs CNNs "
    "RNNs ReLU BLEU ROUGE AUC ROC SGD Adam Table Figure Section Appendix Eq We Our The In This".split()
)
# Identifiers, files and literal values a paper writes in any field ("data came from DOI: ...", "see the README"):
# where data is, or a cell's value, never a dataset's name, whatever data noun is near.
IDENTIFIERS = frozenset("doi dois readme orcid isbn issn pmid pmcid true false nan".split())
# File formats, storage and computing units, in any field ("the PDFs", "a ZIP archive", "Git LFS", "64 GB RAM"): how
# data is stored, moved or processed, never which data. A name made only of these words (singular or plural), maybe
# with words that say nothing of which data ("Git Large File Storage"), is none.
STORAGE_WORDS = frozenset(
    "file format pdf zip csv tsv json jsonl xml html txt tar gz gzip bz2 hdf5 h5 parquet xlsx xls npy npz git lfs "
    "kb mb gb tb pb ram gpu cpu tpu storage".split()
)
# The head nouns of an organisation's name, in any country ("University of X", "X Clinic", "X GmbH"): whoever made,
# funded or hosts data, not the data. A dataset named after one adds its data noun ("the X Clinic cohort").
ORGANISATION_HEADS = frozenset(
    "university universität universidad université università universiteit institute institut instituto gmbh "
    "inc ltd limited llc plc corporation corp clinic hospital laboratory laboratories college foundation "
    "company agency ministry council society association committee department bureau collaboration "
    "hochschule consortium consortia".split()
)
# Countries, continents and regions: where data was gathered ("patients in the US", "stations across Europe"), never
# which data. Cities are left out: a city names a dataset now and then ("Paris" buildings).
PLACES = frozenset(
    ["US", "U.S.", "USA", "UK", "U.K.", "EU", "European Union", "Europe", "Asia", "Africa", "America", "Americas",
     "Oceania", "Australia", "Antarctica", "Arctic", "North America", "South America", "Latin America",
     "Central America", "Middle East", "Scandinavia", "Caribbean", "United States", "United Kingdom", "England",
     "Scotland", "Wales", "Ireland", "Canada", "Mexico", "Brazil", "Argentina", "Chile", "Peru", "Colombia", "China",
     "Japan", "Korea", "South Korea", "India", "Pakistan", "Bangladesh", "Indonesia", "Vietnam", "Thailand",
     "Malaysia", "Singapore", "Philippines", "Germany", "France", "Spain", "Italy", "Portugal", "Netherlands",
     "Belgium", "Switzerland", "Austria", "Sweden", "Norway", "Denmark", "Finland", "Poland", "Russia", "Ukraine",
     "Turkey", "Greece", "Israel", "Iran", "Egypt", "Nigeria", "Kenya", "Ethiopia", "Ghana", "Uganda", "Tanzania",
     "South Africa", "New Zealand", "Taiwan", "Hong Kong"]
)
# Services that host, route or collect data for many datasets, named as where data lives, not as data.
PLATFORMS = frozenset(
    "github gitlab bitbucket huggingface huggingfacehub kaggle zenodo figshare dryad osf openscienceframework "
    "physionet openml googledrive dropbox sourceforge cran pypi bioconductor mendeleydata dataverse "
    "harvarddataverse arxiv biorxiv medrxiv paperswithcode amazonmechanicalturk mechanicalturk mturk prolific "
    "qualtrics googlescholar".split()
)
# Kinds of data and measurement, in any field: what a dataset holds ("RNA-seq", "ECG", "fMRI", "LiDAR"), never
# which dataset it is. Normalised keys (lower case, letters and digits only).
DATA_KINDS = frozenset(
    "rnaseq scrnaseq snrnaseq chipseq atacseq wgs wes dna rna mrna 16s 16srrna proteomics metagenomics "
    "ecg ekg eeg meg emg mri fmri dti ct pet spect xray ultrasound mammography histology "
    "gps lidar radar sonar rgb rgbd imu "
    "timeseries pointcloud pointclouds ehr emr".split()
)
# Languages, which name a dataset's part ("English X") or a translation direction, not a dataset.
LANGUAGES = ("English", "Chinese", "German", "French", "Spanish", "Italian", "Portuguese", "Dutch", "Russian", "Czech",
             "Arabic", "Japanese", "Korean", "Hindi", "Turkish", "Finnish", "Swedish", "Romanian", "Vietnamese",
             "Indonesian", "Thai", "Malay", "Persian", "Hebrew", "Greek", "Polish", "Hungarian", "Bulgarian",
             "Ukrainian", "Croatian", "Serbian", "Slovenian", "Slovak", "Estonian", "Latvian", "Lithuanian", "Danish",
             "Norwegian", "Icelandic", "Catalan", "Basque", "Galician", "Urdu", "Bengali", "Tamil", "Telugu",
             "Swahili", "Yoruba", "Mandarin", "Cantonese")
LANGUAGE_NAMES = frozenset(language.casefold() for language in LANGUAGES)
# Two languages joined: a translation direction ("English-German", "En-De", "EN→FR"), not a dataset.
LANGUAGE_PAIR = re.compile(
    rf"^(?:{'|'.join(LANGUAGES)}|[A-Za-z]{{2}})\s*(?:-|\u2013|\u2192|->|to)\s*(?:{'|'.join(LANGUAGES)}|[A-Za-z]{{2}})$",
    re.I,
)

# Lower-case words that may join a name's capitalised words ("Bank of America", "Universidad de Chile").
NAME_JOINERS = frozenset({"of", "the", "and", "for", "on", "in", "de", "&"})
# Words left out when a name's capitalised words are spelled into an abbreviation ("Stanford Question Answering").
FUNCTION_WORDS = frozenset({"of", "the", "and", "for", "on", "in", "a", "an", "&"})
# Words that say which data on their own never do: generic names, modifiers and function words (all lower case).
PLAIN_WORDS = GENERIC_NAMES | GENERIC_MODIFIERS | FUNCTION_WORDS
# Words that cannot say what a dataset holds between its name and "dataset": "X on the dataset", "X trained on ...".
NOT_KIND_WORDS = ("on|in|of|the|a|an|and|or|for|to|with|from|by|is|are|was|were|be|at|as|than|that|this|these|each|"
                  "every|our|its|their|all|both|any|same|whole|entire|new|other|large|small|standard|public|original")
# Words of reported results: a sentence with them and a dataset cue is likely an evaluation's.
RESULT_WORDS = re.compile(r"\b(?:results?|accuracy|performance|comparison|error|scores?|F1|evaluation)\b", re.I)
# Words of five letters or more that a URL may spell without naming a particular dataset.
GENERIC_URL_WORDS = frozenset({"dataset", "datasets", "corpus", "corpora", "benchmark", "challenge", "reviews",
                               "english", "chinese", "version", "treebank", "collection"})
